import { describe, expect, it } from 'vitest';
import {
  adoptPatch,
  claimDecision,
  getControllerOf,
  isControlledBy,
  newControllerRef,
  releasePatch,
} from '#lib/reconcile/k8s/controller-ref.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import {
  newDaemonSet,
  newPod,
  simpleDaemonSetLabel,
} from '../../../../helpers/builders.js';

const deleting = (ds: DaemonSet): DaemonSet => ({
  ...ds,
  metadata: { ...ds.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
});

describe('claimDecision (BaseControllerRefManager.ClaimObject)', () => {
  const ds = newDaemonSet('foo');
  const other = newDaemonSet('bar');
  const owned = newPod('p-', 'node-0', simpleDaemonSetLabel, ds);
  const foreign = newPod('p-', 'node-0', simpleDaemonSetLabel, other);
  const orphan = newPod('p-', 'node-0', simpleDaemonSetLabel);
  const orphanDeleting: Pod = {
    ...orphan,
    metadata: { ...orphan.metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
  };
  const orphanElsewhere: Pod = {
    ...orphan,
    metadata: { ...orphan.metadata, namespace: 'other' },
  };

  it.each([
    {
      name: 'owned by another controller',
      obj: foreign,
      owner: ds,
      matches: true,
      want: 'ignore',
    },
    {
      name: 'owned and matching',
      obj: owned,
      owner: ds,
      matches: true,
      want: 'claim',
    },
    {
      name: 'owned and matching while deleting',
      obj: owned,
      owner: deleting(ds),
      matches: true,
      want: 'claim',
    },
    {
      name: 'owned, selector no longer matches',
      obj: owned,
      owner: ds,
      matches: false,
      want: 'release',
    },
    {
      name: 'owned, no match, owner deleting',
      obj: owned,
      owner: deleting(ds),
      matches: false,
      want: 'ignore',
    },
    {
      name: 'orphan matching',
      obj: orphan,
      owner: ds,
      matches: true,
      want: 'adopt',
    },
    {
      name: 'orphan not matching',
      obj: orphan,
      owner: ds,
      matches: false,
      want: 'ignore',
    },
    {
      name: 'orphan, owner deleting',
      obj: orphan,
      owner: deleting(ds),
      matches: true,
      want: 'ignore',
    },
    {
      name: 'orphan being deleted',
      obj: orphanDeleting,
      owner: ds,
      matches: true,
      want: 'ignore',
    },
    {
      name: 'orphan in another namespace',
      obj: orphanElsewhere,
      owner: ds,
      matches: true,
      want: 'ignore',
    },
  ])('$name ⇒ $want', ({ obj, owner, matches, want }) => {
    // Act / Assess
    expect(claimDecision(owner, obj, matches)).toBe(want);
  });

  it('adopts an orphan when the owner has no namespace (cluster-scoped)', () => {
    // Prepare
    const clusterScoped: DaemonSet = {
      ...ds,
      metadata: { ...ds.metadata, namespace: undefined },
    };
    // Act / Assess
    expect(claimDecision(clusterScoped, orphanElsewhere, true)).toBe('adopt');
  });

  it('reads the controller reference only', () => {
    // Prepare
    const pod: Pod = {
      metadata: {
        ownerReferences: [
          { apiVersion: 'v1', kind: 'X', name: 'x', uid: 'u1' },
          {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            name: 'foo',
            uid: ds.metadata?.uid ?? '',
            controller: true,
          },
        ],
      },
    };
    // Act / Assess
    expect(getControllerOf(pod)?.uid).toBe(ds.metadata?.uid);
    expect(isControlledBy(pod, ds)).toBe(true);
    expect(isControlledBy(orphan, ds)).toBe(false);
    expect(getControllerOf({})).toBeUndefined();
  });
});

describe('ownership patches', () => {
  it('adopts with the controller reference upstream sends', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    // Act
    const patch = adoptPatch(ds, 'pod-uid');
    // Assess
    expect(patch).toBe(
      `{"metadata":{"ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"foo","uid":"${ds.metadata?.uid}","controller":true,"blockOwnerDeletion":true}],"uid":"pod-uid"}}`
    );
  });

  it('releases with a $patch delete of the owner uid', () => {
    // Prepare
    const ds = newDaemonSet('foo');
    // Act
    const patch = releasePatch(ds, 'pod-uid');
    // Assess
    expect(patch).toBe(
      `{"metadata":{"uid":"pod-uid","ownerReferences":[{"$patch":"delete","uid":"${ds.metadata?.uid}"}]}}`
    );
  });

  it('builds empty names and uids for an object without metadata', () => {
    // Act / Assess
    expect(newControllerRef({})).toEqual({
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      name: '',
      uid: '',
      controller: true,
      blockOwnerDeletion: true,
    });
    expect(releasePatch({}, 'u')).toContain('"uid":""');
  });
});
