/** The two DaemonSet kinds and how a cluster's ownership picks one. */
import { describe, expect, it } from 'vitest';
import {
  ADVANCED_DAEMON_SET,
  kindOf,
  NATIVE_DAEMON_SET,
  ownedKind,
} from '#lib/reconcile/k8s/daemon-set-kind.js';
import { newDaemonSet } from '../../../../helpers/builders.js';

describe('daemon set kinds', () => {
  it('maps a record’s ownership (an apiVersion) to the kind it owns', () => {
    expect(ownedKind('apps.dsr.dev/v1beta1')).toBe(ADVANCED_DAEMON_SET);
    expect(ownedKind('apps/v1')).toBe(NATIVE_DAEMON_SET);
  });

  it('reads an object’s kind, apps/v1 unless it says AdvancedDaemonSet', () => {
    const advanced = { ...newDaemonSet('a'), kind: 'AdvancedDaemonSet' };
    const bare = { ...newDaemonSet('b'), kind: undefined };
    expect(kindOf(advanced)).toBe(ADVANCED_DAEMON_SET);
    expect(kindOf(newDaemonSet('n'))).toBe(NATIVE_DAEMON_SET);
    expect(kindOf(bare)).toBe(NATIVE_DAEMON_SET);
  });
});
