/** What `kubectl dsr migrate` creates for a source, and what it drops. */
import { describe, expect, it } from 'vitest';
import {
  migratedObject,
  resourceName,
  targetKindOf,
} from '#lib/cli/plugin/migrate.js';
import {
  ADVANCED_DAEMON_SET,
  KRUISE_DAEMON_SET,
  NATIVE_DAEMON_SET,
} from '#lib/reconcile/k8s/daemon-set-kind.js';
import { TEMPLATE_GENERATION_ANNOTATION } from '#lib/reconcile/k8s/types.js';
import { newDaemonSet } from '../../../../helpers/builders.js';

describe('migratedObject', () => {
  it('copies template, selector and budgets to the own kind, dropping the template-generation annotation', () => {
    // Prepare
    const source = newDaemonSet('agent');
    if (source.spec) {
      source.spec.updateStrategy = {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: '10%', maxSurge: 0 },
      };
      source.spec.minReadySeconds = 5;
      source.spec.revisionHistoryLimit = 3;
    }
    // Act
    const { object, dropped } = migratedObject(
      source,
      NATIVE_DAEMON_SET,
      ADVANCED_DAEMON_SET
    );
    // Assess
    expect(object.kind).toBe('AdvancedDaemonSet');
    expect(
      object.metadata?.annotations?.[TEMPLATE_GENERATION_ANNOTATION]
    ).toBeUndefined();
    expect(object.spec?.template).toEqual(source.spec?.template);
    expect(object.spec?.updateStrategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: '10%', maxSurge: 0 },
    });
    expect(object.spec?.minReadySeconds).toBe(5);
    expect(dropped).toEqual([]);
  });

  it('names the own kind’s controls apps/v1 cannot hold when moving back', () => {
    // Prepare
    const source = newDaemonSet('agent');
    if (source.spec) {
      source.spec.updateStrategy = {
        type: 'RollingUpdate',
        rollingUpdate: {
          partition: 2,
          paused: true,
          rollingUpdateType: 'InPlaceIfPossible',
        },
      };
      source.spec.lifecycle = { preDelete: { labelsHandler: { a: 'b' } } };
      source.spec.burstReplicas = 10;
    }
    // Act
    const { object, dropped } = migratedObject(
      source,
      ADVANCED_DAEMON_SET,
      NATIVE_DAEMON_SET
    );
    // Assess
    expect(object.kind).toBe('DaemonSet');
    expect(object.spec?.updateStrategy).toEqual({
      type: 'RollingUpdate',
      rollingUpdate: {},
    });
    expect(dropped).toEqual([
      'partition',
      'paused',
      'InPlaceIfPossible',
      'lifecycle',
      'burstReplicas',
    ]);
  });

  it('copies a Kruise spec as it is (same fields), and keeps OnDelete', () => {
    const source = newDaemonSet('agent');
    if (source.spec) source.spec.burstReplicas = '50%';
    const fromKruise = migratedObject(
      source,
      KRUISE_DAEMON_SET,
      ADVANCED_DAEMON_SET
    );
    expect(fromKruise.object.spec).toEqual(source.spec);
    const onDelete = migratedObject(
      newDaemonSet('x'),
      NATIVE_DAEMON_SET,
      ADVANCED_DAEMON_SET
    );
    expect(onDelete.object.spec?.updateStrategy).toEqual({ type: 'OnDelete' });
  });

  it('maps kinds and their kubectl names', () => {
    expect(targetKindOf(NATIVE_DAEMON_SET)).toBe(ADVANCED_DAEMON_SET);
    expect(targetKindOf(KRUISE_DAEMON_SET)).toBe(ADVANCED_DAEMON_SET);
    expect(targetKindOf(ADVANCED_DAEMON_SET)).toBe(NATIVE_DAEMON_SET);
    expect(resourceName(NATIVE_DAEMON_SET)).toBe('daemonset.apps');
    expect(resourceName(ADVANCED_DAEMON_SET)).toBe(
      'advanceddaemonset.apps.dsr.dev'
    );
  });
});
