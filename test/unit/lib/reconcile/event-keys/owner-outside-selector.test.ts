/**
 * ownerOutsideSelector: which pod events must tell the owner's sync of a pod
 * its selector-filtered read cannot see (owned, relabelled out of the
 * selector), so that it is released as upstream releases it.
 */
import { describe, expect, it } from 'vitest';
import {
  type ClusterView,
  ownerOutsideSelector,
} from '#lib/reconcile/event-keys/index.js';
import type { Pod } from '#lib/reconcile/k8s/types.js';
import {
  markPodDeleting,
  newDaemonSet,
  newPod,
  simpleDaemonSetLabel,
} from '#test/helpers/builders.js';

const ds = newDaemonSet('foo');
const view: ClusterView = {
  cluster: 'c1',
  daemonSets: [ds],
  ownerKind: 'DaemonSet',
};
const relabelled = (pod: Pod): Pod => ({
  ...pod,
  metadata: { ...pod.metadata, labels: { name: 'moved-away' } },
});

describe('ownerOutsideSelector', () => {
  it.each([
    {
      name: 'an owned pod relabelled out of the selector: its owner',
      pod: relabelled(newPod('a-', 'node-1', simpleDaemonSetLabel, ds)),
      want: ds,
    },
    {
      name: 'an owned pod the selector matches: none',
      pod: newPod('a-', 'node-1', simpleDaemonSetLabel, ds),
      want: undefined,
    },
    {
      name: 'an orphan outside every selector: none',
      pod: relabelled(newPod('a-', 'node-1', simpleDaemonSetLabel)),
      want: undefined,
    },
    {
      name: 'an owned pod being deleted: none (deletion needs no release)',
      pod: markPodDeleting(
        relabelled(newPod('a-', 'node-1', simpleDaemonSetLabel, ds)),
        0
      ),
      want: undefined,
    },
    {
      name: 'a pod whose owner is not in the view: none',
      pod: relabelled(
        newPod('a-', 'node-1', simpleDaemonSetLabel, newDaemonSet('gone'))
      ),
      want: undefined,
    },
  ])('$name', ({ pod, want }) => {
    // Act / Assess
    expect(ownerOutsideSelector(view, pod)).toBe(want);
  });
});
