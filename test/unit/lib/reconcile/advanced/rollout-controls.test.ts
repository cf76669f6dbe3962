/**
 * The readers of the own kind's rollout controls: Kruise's
 * TestNodeShouldUpdateBySelector, TestCreatePodProgressively and
 * Test_getBurstReplicas (pkg/controller/daemonset/daemonset_util_test.go),
 * plus the partition and pause readers, under both kinds.
 */
import { describe, expect, it } from 'vitest';
import {
  getBurstReplicas,
  getPartition,
  isDaemonSetCreationProgressively,
  isDaemonSetPaused,
  isPreparingDelete,
  LIFECYCLE_STATE_LABEL,
  nodeShouldUpdateBySelector,
  PREPARING_DELETE,
} from '#lib/reconcile/advanced/rollout-controls.js';
import type {
  AdvancedDaemonSetSpec,
  DaemonSet,
} from '#lib/reconcile/k8s/types.js';
import { BURST_REPLICAS } from '#lib/reconcile/slow-start.js';
import { newDaemonSet, newNode } from '../../../../helpers/builders.js';

/** An own-kind DaemonSet with Kruise fields merged over apps/v1's. */
const advanced = (
  spec: AdvancedDaemonSetSpec & { type?: 'RollingUpdate' | 'OnDelete' }
): DaemonSet => {
  const ds = newDaemonSet('ds1');
  const { type = 'RollingUpdate', updateStrategy, ...rest } = spec;
  ds.spec = {
    selector: ds.spec?.selector ?? {},
    template: ds.spec?.template ?? {},
    ...rest,
    updateStrategy: {
      type,
      rollingUpdate: { ...updateStrategy?.rollingUpdate },
    },
  };
  return ds;
};

describe('rollout controls', () => {
  describe('TestNodeShouldUpdateBySelector', () => {
    it.each([
      {
        title: 'node with no label',
        labels: undefined,
        selector: undefined,
        expected: false,
      },
      {
        title: 'node with label, not selected',
        labels: { key1: 'value1' },
        selector: { key1: 'value2' },
        expected: false,
      },
      {
        title: 'node with label, selected',
        labels: { key1: 'value1' },
        selector: { key1: 'value1' },
        expected: true,
      },
    ])('$title', ({ labels, selector, expected }) => {
      // Prepare
      const ds = advanced({
        updateStrategy: {
          rollingUpdate: selector
            ? { selector: { matchLabels: selector } }
            : {},
        },
      });
      // Act
      const should = nodeShouldUpdateBySelector(newNode('node1', labels), ds);
      // Assess
      expect(should).toBe(expected);
    });

    it('selects nothing under OnDelete, with an empty selector, or an invalid one', () => {
      // Prepare
      const node = newNode('node1', { key1: 'value1' });
      const onDelete = advanced({
        type: 'OnDelete',
        updateStrategy: {
          rollingUpdate: { selector: { matchLabels: { key1: 'value1' } } },
        },
      });
      const empty = advanced({
        updateStrategy: { rollingUpdate: { selector: {} } },
      });
      const invalid = advanced({
        updateStrategy: {
          rollingUpdate: {
            selector: { matchExpressions: [{ key: 'key1', operator: 'Near' }] },
          },
        },
      });
      // Act & Assess
      expect(nodeShouldUpdateBySelector(node, onDelete)).toBe(false);
      expect(nodeShouldUpdateBySelector(node, empty)).toBe(false);
      expect(nodeShouldUpdateBySelector(node, invalid)).toBe(false);
    });
  });

  describe('TestCreatePodProgressively', () => {
    it('is on only with scaleStrategy.partitionedScaling true', () => {
      // Prepare
      const on = advanced({ scaleStrategy: { partitionedScaling: true } });
      const off = advanced({ scaleStrategy: { partitionedScaling: false } });
      const annotated = advanced({});
      annotated.metadata = {
        ...annotated.metadata,
        annotations: { 'daemonset.kruise.io/progressive-create-pod': 'true' },
      };
      // Act & Assess
      expect(isDaemonSetCreationProgressively(on)).toBe(true);
      expect(isDaemonSetCreationProgressively(off)).toBe(false);
      expect(isDaemonSetCreationProgressively(annotated)).toBe(false);
      expect(isDaemonSetCreationProgressively(newDaemonSet('native'))).toBe(
        false
      );
    });
  });

  describe('Test_getBurstReplicas', () => {
    it('returns an int burst as it is', () => {
      expect(getBurstReplicas(advanced({ burstReplicas: 10 }), 100)).toBe(10);
    });

    it('scales a percentage against the desired count, rounded down', () => {
      expect(getBurstReplicas(advanced({ burstReplicas: '50%' }), 5)).toBe(2);
    });

    it('never returns 0: a percentage of a small count still creates one pod', () => {
      // Kruise froze here (spec §4 #4): 50% of a status not yet written.
      expect(getBurstReplicas(advanced({ burstReplicas: '50%' }), 0)).toBe(1);
    });

    it('returns upstream’s 250 for an apps/v1 DaemonSet', () => {
      expect(getBurstReplicas(newDaemonSet('native'), 5_000)).toBe(
        BURST_REPLICAS
      );
    });
  });

  describe('getPartition', () => {
    it.each([
      { partition: 3, desired: 10, expected: 3 },
      { partition: '50%', desired: 5, expected: 2 },
      { partition: '100%', desired: 7, expected: 7 },
      { partition: '0%', desired: 7, expected: 0 },
    ])(
      'scales $partition of $desired to $expected (rounded down)',
      ({ partition, desired, expected }) => {
        const ds = advanced({
          updateStrategy: { rollingUpdate: { partition } },
        });
        expect(getPartition(ds, desired)).toBe(expected);
      }
    );

    it('is undefined when unset, under OnDelete, and for apps/v1', () => {
      expect(getPartition(advanced({}), 10)).toBeUndefined();
      expect(
        getPartition(
          advanced({
            type: 'OnDelete',
            updateStrategy: { rollingUpdate: { partition: 2 } },
          }),
          10
        )
      ).toBeUndefined();
      expect(getPartition(newDaemonSet('native'), 10)).toBeUndefined();
    });
  });

  describe('isDaemonSetPaused', () => {
    it('is true only for rollingUpdate.paused: true', () => {
      const paused = advanced({
        updateStrategy: { rollingUpdate: { paused: true } },
      });
      const running = advanced({
        updateStrategy: { rollingUpdate: { paused: false } },
      });
      expect(isDaemonSetPaused(paused)).toBe(true);
      expect(isDaemonSetPaused(running)).toBe(false);
      expect(isDaemonSetPaused(newDaemonSet('native'))).toBe(false);
    });
  });

  describe('isPreparingDelete', () => {
    it('TestGetPodLifecycleState: reads Kruise’s lifecycle label', () => {
      expect(
        isPreparingDelete({
          metadata: { labels: { [LIFECYCLE_STATE_LABEL]: PREPARING_DELETE } },
        })
      ).toBe(true);
      expect(isPreparingDelete({ metadata: {} })).toBe(false);
      expect(isPreparingDelete(undefined)).toBe(false);
    });
  });
});
