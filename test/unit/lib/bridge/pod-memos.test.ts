/**
 * PodMemos keeps what a bridge run remembers of a pod only where it can
 * change what the pod's updates wake: pods of the owned kind, and orphans
 * a DaemonSet may adopt. Pods of other controllers leave no memo.
 */
import { describe, expect, it } from 'vitest';
import { PodMemos } from '#lib/bridge/pod-memos.js';
import type { ClusterView } from '#lib/reconcile/event-keys/common.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import {
  newDaemonSet,
  newPod,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';

const ds = newDaemonSet('a');
const view: ClusterView = {
  cluster: 'c1',
  daemonSets: [ds],
  ownerKind: 'DaemonSet',
};

/** A pod of a Deployment (controlled by its ReplicaSet). */
const deploymentPod = (): Pod => {
  const pod = newPod('web-', 'n1', simpleDaemonSetLabel);
  pod.metadata = {
    ...pod.metadata,
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'web-5d8f',
        uid: 'rs-1',
        controller: true,
      },
    ],
  };
  return pod;
};

describe('PodMemos', () => {
  it('leaves no memo of a pod of a Deployment', () => {
    // Prepare
    const memos = new PodMemos();
    // Act
    memos.remember(view, deploymentPod());
    // Assess
    expect(memos.size).toBe(0);
  });

  it('remembers a pod of the owned kind and an orphan a DaemonSet selects', () => {
    // Prepare
    const memos = new PodMemos();
    const owned = newPod('a-', 'n1', simpleDaemonSetLabel, ds);
    const orphan = newPod('o-', 'n1', simpleDaemonSetLabel);
    // Act
    memos.remember(view, owned);
    memos.remember(view, orphan);
    memos.remember(view, newPod('x-', 'n1', { app: 'unrelated' }));
    // Assess
    expect(memos.size).toBe(2);
    expect(memos.get(owned.metadata?.uid ?? '')?.owner?.name).toBe('a');
    expect(memos.get(orphan.metadata?.uid ?? '')).toEqual({
      owner: null,
      ready: false,
    });
  });

  it('drops the memo of a pod whose controller is no longer of the owned kind', () => {
    // Prepare
    const memos = new PodMemos();
    const pod = newPod('a-', 'n1', simpleDaemonSetLabel, ds);
    memos.remember(view, pod);
    const moved = deploymentPod();
    moved.metadata = { ...moved.metadata, uid: pod.metadata?.uid ?? '' };
    // Act
    memos.remember(view, moved);
    // Assess
    expect(memos.size).toBe(0);
  });
});
