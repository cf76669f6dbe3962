/**
 * The event→key mapping of a bridge that resumes from stored
 * resourceVersions without caches: it must wake at least what upstream's
 * handlers wake (pods, revisions) and exactly the DaemonSets whose placement
 * changes (nodes, from the node index).
 */
import { describe, expect, it } from 'vitest';
import type { ClusterView } from '#lib/reconcile/event-keys/index.js';
import { updatePod } from '#lib/reconcile/event-keys/index.js';
import {
  nodeFactsOf,
  nodeOfFacts,
  podMemoOf,
  shouldRememberPod,
  updateHistoryResumed,
  updateNodeResumed,
  updatePodResumed,
} from '#lib/reconcile/event-keys/resumed.js';
import type {
  ControllerRevision,
  DaemonSet,
} from '#lib/reconcile/k8s/types.js';
import { ROLLOUT_ANNOTATION } from '#lib/reconcile/on-delete/rollout-annotation.js';
import {
  markPodReady,
  newDaemonSet,
  newNode,
  newPod,
  simpleDaemonSetLabel,
} from '../../../../helpers/builders.js';

const viewOf = (...daemonSets: DaemonSet[]): ClusterView => ({
  cluster: 'c1',
  daemonSets,
  ownerKind: 'DaemonSet',
});

const withNodeSelector = (ds: DaemonSet, sel: Record<string, string>) => {
  (ds.spec as NonNullable<DaemonSet['spec']>).template.spec = {
    ...ds.spec?.template.spec,
    containers: ds.spec?.template.spec?.containers ?? [],
    nodeSelector: sel,
  };
  return ds;
};

describe('nodeFactsOf / nodeOfFacts', () => {
  it('keeps labels and taints only, and round-trips through a node', () => {
    // Prepare
    const node = newNode('n1', { zone: 'a' });
    node.spec = { taints: [{ key: 'k', effect: 'NoSchedule' }] };
    // Act
    const facts = nodeFactsOf(node);
    const back = nodeOfFacts('n1', facts);
    // Assess
    expect(facts).toEqual({
      labels: { zone: 'a' },
      taints: [{ key: 'k', effect: 'NoSchedule' }],
    });
    expect(back).toEqual({
      metadata: { name: 'n1', labels: { zone: 'a' } },
      spec: { taints: [{ key: 'k', effect: 'NoSchedule' }] },
    });
  });

  it('leaves out absent labels and empty taints', () => {
    // Prepare
    const node = newNode('n1');
    node.spec = { taints: [] };
    // Act / Assess
    expect(nodeFactsOf(node)).toEqual({});
    expect(nodeOfFacts('n1', {})).toEqual({
      metadata: { name: 'n1' },
      spec: {},
    });
  });
});

describe('updateNodeResumed', () => {
  it('handles a node the index has not seen as an add (wakes DaemonSets that should run there)', () => {
    // Prepare
    const wanted = withNodeSelector(newDaemonSet('wanted'), { zone: 'a' });
    const other = withNodeSelector(newDaemonSet('other'), { zone: 'b' });
    // Act
    const out = updateNodeResumed(
      viewOf(wanted, other),
      undefined,
      newNode('n1', { zone: 'a' })
    );
    // Assess
    expect(out.keys).toEqual(['c1/default/wanted']);
  });

  it('wakes nobody when labels and taints are unchanged (heartbeats, status)', () => {
    // Prepare
    const ds = newDaemonSet('ds');
    const node = newNode('n1', { zone: 'a' });
    // Act
    const out = updateNodeResumed(viewOf(ds), nodeFactsOf(node), node);
    // Assess
    expect(out.keys).toEqual([]);
  });

  it('wakes only the DaemonSets whose placement on the node changes', () => {
    // Prepare
    const gainsNode = withNodeSelector(newDaemonSet('gains'), { zone: 'b' });
    const losesNode = withNodeSelector(newDaemonSet('loses'), { zone: 'a' });
    const unaffected = withNodeSelector(newDaemonSet('same'), { role: 'x' });
    const everywhere = newDaemonSet('everywhere');
    // Act
    const out = updateNodeResumed(
      viewOf(gainsNode, losesNode, unaffected, everywhere),
      { labels: { zone: 'a' } },
      newNode('n1', { zone: 'b' })
    );
    // Assess
    expect(out.keys.sort()).toEqual(['c1/default/gains', 'c1/default/loses']);
  });

  it('TestEnqueueRequestForNodeUpdate (Kruise): wakes an own-kind DaemonSet whose canary selector starts or stops matching the node', () => {
    // Prepare
    const canary = newDaemonSet('canary');
    if (canary.spec) {
      canary.spec.updateStrategy = {
        type: 'RollingUpdate',
        rollingUpdate: { selector: { matchLabels: { canary: 'true' } } },
      };
    }
    const plain = newDaemonSet('plain');
    // Act
    const gained = updateNodeResumed(
      viewOf(canary, plain),
      { labels: { zone: 'a' } },
      newNode('n1', { zone: 'a', canary: 'true' })
    );
    const lost = updateNodeResumed(
      viewOf(canary, plain),
      { labels: { zone: 'a', canary: 'true' } },
      newNode('n1', { zone: 'a' })
    );
    // Assess
    expect(gained.keys).toEqual(['c1/default/canary']);
    expect(lost.keys).toEqual(['c1/default/canary']);
  });

  it('wakes an opted-in OnDelete DaemonSet whose annotation’s canary selector starts matching the node', () => {
    // Prepare: newDaemonSet is OnDelete, as a Helm chart's agent would be.
    const canary = newDaemonSet('canary');
    canary.metadata = {
      ...canary.metadata,
      annotations: {
        [ROLLOUT_ANNOTATION]: JSON.stringify({
          selector: { matchLabels: { canary: 'true' } },
        }),
      },
    };
    const plain = newDaemonSet('plain');
    // Act
    const gained = updateNodeResumed(
      viewOf(canary, plain),
      { labels: { zone: 'a' } },
      newNode('n1', { zone: 'a', canary: 'true' })
    );
    // Assess
    expect(gained.keys).toEqual(['c1/default/canary']);
  });

  it('tolerates a node without a name (it matches no matchFields term)', () => {
    // Prepare
    const ds = newDaemonSet('ds');
    // Act
    const out = updateNodeResumed(viewOf(ds), { labels: { a: 'b' } }, {});
    // Assess
    expect(out.keys).toEqual([]);
  });

  it('wakes a DaemonSet when a NoExecute taint stops it from continuing to run', () => {
    // Prepare
    const ds = newDaemonSet('ds');
    const tainted = newNode('n1');
    tainted.spec = { taints: [{ key: 'evict', effect: 'NoExecute' }] };
    // Act
    const out = updateNodeResumed(viewOf(ds), {}, tainted);
    // Assess
    expect(out.keys).toEqual(['c1/default/ds']);
    expect(out.expectations).toEqual([]);
  });
});

describe('updatePodResumed', () => {
  it('wakes the owner of an owned pod, like upstream updatePod', () => {
    // Prepare
    const ds = newDaemonSet('ds');
    const pod = newPod('p-', 'n1', simpleDaemonSetLabel, ds);
    pod.metadata = { ...pod.metadata, resourceVersion: '7' };
    // Act
    const out = updatePodResumed(viewOf(ds), pod);
    // Assess
    expect(out.keys).toEqual(['c1/default/ds']);
  });

  it('wakes the old owner too when the controller changed since the bridge last saw the pod (F17)', () => {
    // Prepare: A owned the pod; one update re-parents it to B.
    const a = newDaemonSet('a');
    const b = newDaemonSet('b');
    const seen = newPod('p-', 'n1', simpleDaemonSetLabel, a);
    const cur = newPod('p-', 'n1', simpleDaemonSetLabel, b);
    cur.metadata = { ...cur.metadata, resourceVersion: '8' };
    const [lastOwner] = seen.metadata?.ownerReferences ?? [];
    // Act
    const moved = updatePodResumed(viewOf(a, b), cur, {
      owner: lastOwner ?? null,
      ready: false,
    });
    const unknown = updatePodResumed(viewOf(a, b), cur);
    // Assess
    expect(moved.keys.sort()).toEqual(['c1/default/a', 'c1/default/b']);
    expect(unknown.keys).toEqual(['c1/default/b']);
  });

  it('wakes the old owner of a pod orphaned and relabelled in one update', () => {
    // Prepare
    const a = newDaemonSet('a');
    const seen = newPod('p-', 'n1', simpleDaemonSetLabel, a);
    const orphan = newPod('p-', 'n1', { other: 'x' });
    orphan.metadata = { ...orphan.metadata, resourceVersion: '8' };
    const [lastOwner] = seen.metadata?.ownerReferences ?? [];
    // Act
    const out = updatePodResumed(viewOf(a), orphan, {
      owner: lastOwner ?? null,
      ready: false,
    });
    // Assess
    expect(out.keys).toEqual(['c1/default/a']);
  });

  it('arms no minReadySeconds timer for an update of a pod the bridge saw Ready (F19)', () => {
    // Prepare
    const ds = newDaemonSet('ds');
    if (ds.spec) ds.spec.minReadySeconds = 30;
    const ready = markPodReady(newPod('p-', 'n1', simpleDaemonSetLabel, ds), 0);
    ready.metadata = { ...ready.metadata, resourceVersion: '9' };
    // Act
    const seenReady = updatePodResumed(viewOf(ds), ready, podMemoOf(ready));
    const unseen = updatePodResumed(viewOf(ds), ready);
    // Assess
    expect(seenReady.keys).toEqual(['c1/default/ds']);
    expect(seenReady.delayedKeys).toEqual([]);
    expect(unseen.delayedKeys).toHaveLength(1);
  });

  it('remembers an orphan as having no controller (null, not unknown)', () => {
    // Prepare
    const orphan = newPod('p-', 'n1', simpleDaemonSetLabel);
    // Act
    const memo = podMemoOf(orphan);
    // Assess
    expect(memo).toEqual({ owner: null, ready: false });
  });

  it('knows an orphan stayed an orphan (null: no controller last time)', () => {
    // Prepare
    const ds = newDaemonSet('ds');
    const owned = newPod('p-', 'n1', simpleDaemonSetLabel, ds);
    owned.metadata = { ...owned.metadata, resourceVersion: '9' };
    // Act: adopted since (upstream: old ref nil, new ref set ⇒ new owner).
    const out = updatePodResumed(viewOf(ds), owned, {
      owner: null,
      ready: false,
    });
    // Assess
    expect(out.keys).toEqual(['c1/default/ds']);
  });

  it('wakes every DaemonSet selecting an orphan (its labels may have changed)', () => {
    // Prepare
    const ds = newDaemonSet('ds');
    const orphan = newPod('p-', 'n1', simpleDaemonSetLabel);
    orphan.metadata = { ...orphan.metadata, resourceVersion: '7' };
    // Act
    const resumed = updatePodResumed(viewOf(ds), orphan);
    const upstreamSameLabels = updatePod(
      viewOf(ds),
      { ...orphan, metadata: { ...orphan.metadata, resourceVersion: '6' } },
      orphan
    );
    // Assess
    expect(resumed.keys).toEqual(['c1/default/ds']);
    expect(upstreamSameLabels.keys).toEqual([]);
  });

  it('schedules the minReadySeconds requeue for a Ready pod (old readiness unknown)', () => {
    // Prepare
    const ds = newDaemonSet('ds');
    (ds.spec as NonNullable<DaemonSet['spec']>).minReadySeconds = 10;
    const pod = markPodReady(newPod('p-', 'n1', simpleDaemonSetLabel, ds), 0);
    pod.metadata = { ...pod.metadata, resourceVersion: '7' };
    // Act
    const out = updatePodResumed(viewOf(ds), pod);
    // Assess
    expect(out.delayedKeys).toEqual([
      { key: 'c1/default/ds', afterMs: 11_000 },
    ]);
  });

  it('observes a deletion when the pod carries a deletion timestamp', () => {
    // Prepare
    const ds = newDaemonSet('ds');
    const pod = newPod('p-', 'n1', simpleDaemonSetLabel, ds);
    pod.metadata = {
      ...pod.metadata,
      resourceVersion: '7',
      deletionTimestamp: '2026-01-01T00:00:00Z',
    };
    // Act
    const out = updatePodResumed(viewOf(ds), pod);
    // Assess
    expect(out.expectations).toEqual([
      { key: 'c1/default/ds', observed: 'deletion' },
    ]);
  });
});

describe('updateHistoryResumed', () => {
  it('wakes the owner of an owned revision and the selectors of an orphan', () => {
    // Prepare
    const ds = newDaemonSet('ds');
    const owned: ControllerRevision = {
      metadata: {
        name: 'r1',
        namespace: 'default',
        resourceVersion: '9',
        labels: { ...simpleDaemonSetLabel },
        ownerReferences: [
          {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            name: 'ds',
            uid: ds.metadata?.uid ?? '',
            controller: true,
          },
        ],
      },
      revision: 1,
    };
    const orphan: ControllerRevision = {
      metadata: { ...owned.metadata, name: 'r2', ownerReferences: [] },
      revision: 1,
    };
    // Act / Assess
    expect(updateHistoryResumed(viewOf(ds), owned).keys).toEqual([
      'c1/default/ds',
    ]);
    expect(updateHistoryResumed(viewOf(ds), orphan).keys).toEqual([
      'c1/default/ds',
    ]);
  });
});

describe('updatePodResumed at an instant', () => {
  const readyPod = (sinceMs: number) => {
    const ds = newDaemonSet('ds');
    if (ds.spec) ds.spec.minReadySeconds = 30;
    const pod = markPodReady(
      newPod('p-', 'n1', simpleDaemonSetLabel, ds),
      sinceMs
    );
    pod.metadata = { ...pod.metadata, resourceVersion: '9' };
    return { ds, pod };
  };

  it('arms no minReadySeconds timer for a pod it never saw that has been Ready longer than the wait', () => {
    // Prepare: Ready for 10 min, minReadySeconds 30.
    const { ds, pod } = readyPod(0);
    // Act
    const out = updatePodResumed(viewOf(ds), pod, undefined, 600_000);
    // Assess: available already; the owner's sync counts it.
    expect(out.keys).toEqual(['c1/default/ds']);
    expect(out.delayedKeys).toEqual([]);
  });

  it('arms the timer for a pod that turned Ready within the wait', () => {
    // Prepare: Ready for 5 s.
    const { ds, pod } = readyPod(595_000);
    // Act
    const out = updatePodResumed(viewOf(ds), pod, undefined, 600_000);
    // Assess
    expect(out.delayedKeys).toEqual([
      { key: 'c1/default/ds', afterMs: 31_000 },
    ]);
  });

  it('wakes the owner of a pod that is not Ready, with no timer', () => {
    // Prepare
    const ds = newDaemonSet('ds');
    if (ds.spec) ds.spec.minReadySeconds = 30;
    const pod = newPod('p-', 'n1', simpleDaemonSetLabel, ds);
    pod.metadata = { ...pod.metadata, resourceVersion: '9' };
    // Act
    const out = updatePodResumed(viewOf(ds), pod, undefined, 600_000);
    // Assess
    expect(out).toMatchObject({ keys: ['c1/default/ds'], delayedKeys: [] });
  });
});

describe('shouldRememberPod', () => {
  const ds = newDaemonSet('ds');
  const rsRef = {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    name: 'web-5d8f',
    uid: 'rs-1',
    controller: true,
  };
  it.each([
    {
      name: 'a pod of the owned kind',
      pod: () => newPod('p-', 'n1', simpleDaemonSetLabel, ds),
      remember: true,
    },
    {
      name: 'an orphan a DaemonSet selects',
      pod: () => newPod('p-', 'n1', simpleDaemonSetLabel),
      remember: true,
    },
    {
      name: 'an orphan no DaemonSet selects',
      pod: () => newPod('p-', 'n1', { app: 'other' }),
      remember: false,
    },
    {
      name: 'a pod of a ReplicaSet',
      pod: () => {
        const pod = newPod('p-', 'n1', simpleDaemonSetLabel);
        pod.metadata = { ...pod.metadata, ownerReferences: [rsRef] };
        return pod;
      },
      remember: false,
    },
  ])('$name: $remember', ({ pod, remember }) => {
    // Act / Assess
    expect(shouldRememberPod(viewOf(ds), pod())).toBe(remember);
  });
});
