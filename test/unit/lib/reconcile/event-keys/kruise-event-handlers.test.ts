/**
 * Kruise's event handler tests (pkg/controller/daemonset/
 * daemonset_event_handler_test.go, spec/kruise-ads.md §3.1) on the own
 * kind: the same handlers as apps/v1, with owner references naming
 * `AdvancedDaemonSet`. Each `it` is one of Kruise's cases; a key in `keys`
 * is Kruise's enqueue.
 */
import { describe, expect, it } from 'vitest';
import {
  addNode,
  type ClusterView,
  updatePod,
} from '#lib/reconcile/event-keys/index.js';
import { addPod } from '#lib/reconcile/event-keys/pods.js';
import { ADVANCED_DAEMON_SET } from '#lib/reconcile/k8s/daemon-set-kind.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import {
  clone,
  newDaemonSet,
  newNode,
  newPod,
  simpleDaemonSetLabel,
} from '../../../../helpers/builders.js';

const CLUSTER = 'c1';

/** An own-kind DaemonSet. */
const ads = (name: string): DaemonSet => ({
  ...newDaemonSet(name),
  apiVersion: ADVANCED_DAEMON_SET.apiVersion,
  kind: ADVANCED_DAEMON_SET.kind,
});

const view = (...daemonSets: DaemonSet[]): ClusterView => ({
  cluster: CLUSTER,
  daemonSets,
  ownerKind: ADVANCED_DAEMON_SET.kind,
});

const keyOf = (ds: DaemonSet) =>
  `${CLUSTER}/${ds.metadata?.namespace}/${ds.metadata?.name}`;

/** A pod on node-0 controlled by `owner` through an own-kind reference. */
const ownedBy = (owner: DaemonSet, labels = simpleDaemonSetLabel): Pod => {
  const pod = newPod('pod-', 'node-0', labels, owner);
  const [ref] = pod.metadata?.ownerReferences ?? [];
  if (ref) {
    ref.apiVersion = ADVANCED_DAEMON_SET.apiVersion;
    ref.kind = ADVANCED_DAEMON_SET.kind;
  }
  return pod;
};

/** The pod with the next resourceVersion and `change` applied. */
const next = (pod: Pod, change: (p: Pod) => void = () => undefined): Pod => {
  const cur = clone(pod);
  const rv = Number(pod.metadata?.resourceVersion ?? '0') + 1;
  cur.metadata = { ...cur.metadata, resourceVersion: String(rv) };
  change(cur);
  return cur;
};

describe('TestEnqueueRequestForPodCreate', () => {
  const ds1 = ads('ds1');
  const ds2 = ads('ds2');

  it('no ds: a deleting pod or one without labels enqueues nothing', () => {
    const deleting = newPod('pod-', 'node-0', simpleDaemonSetLabel);
    if (deleting.metadata) deleting.metadata.deletionTimestamp = 'T';
    expect(addPod(view(ds1, ds2), deleting).keys).toEqual([]);
    expect(addPod(view(ds1, ds2), newPod('pod-', 'node-0', {})).keys).toEqual(
      []
    );
  });

  it('multi ds: an orphan both select enqueues both', () => {
    const orphan = newPod('pod-', 'node-0', simpleDaemonSetLabel);
    expect(addPod(view(ds1, ds2), orphan).keys).toEqual([
      keyOf(ds1),
      keyOf(ds2),
    ]);
  });

  it('correct owner reference: enqueues its owner once and observes a creation', () => {
    const got = addPod(view(ds1, ds2), ownedBy(ds1));
    expect(got.keys).toEqual([keyOf(ds1)]);
    expect(got.expectations).toEqual([
      { key: keyOf(ds1), observed: 'creation' },
    ]);
  });

  it('an apps/v1 owner reference of the same name is not ours (group and kind must match)', () => {
    const native = newPod('pod-', 'node-0', simpleDaemonSetLabel, ds1);
    expect(addPod(view(ds1, ds2), native)).toMatchObject({
      keys: [],
      expectations: [],
    });
  });
});

describe('TestEnqueueRequestForPodUpdate', () => {
  const ds1 = ads('ds1');
  const ds2 = ads('ds2');
  const ds3 = ads('ds3');
  if (ds3.spec) ds3.spec.selector = { matchLabels: { app: 'other' } };

  it('resourceVersion no changed: nothing', () => {
    const pod = ownedBy(ds1);
    expect(updatePod(view(ds1, ds2), pod, clone(pod)).keys).toEqual([]);
  });

  it('label changed and update: a terminating owned pod enqueues its owner', () => {
    const pod = ownedBy(ds1);
    const cur = next(pod, (p) => {
      if (p.metadata) {
        p.metadata.deletionTimestamp = 'T';
        p.metadata.labels = { ...p.metadata.labels, extra: 'x' };
      }
    });
    expect(updatePod(view(ds1, ds2), pod, cur).keys).toEqual([keyOf(ds1)]);
  });

  it('reference changed: old and new owner', () => {
    const pod = ownedBy(ds1);
    const moved = ownedBy(ds2);
    const cur = next(pod, (p) => {
      if (p.metadata)
        p.metadata.ownerReferences = moved.metadata?.ownerReferences;
    });
    expect(updatePod(view(ds1, ds2), pod, cur).keys.sort()).toEqual(
      [keyOf(ds1), keyOf(ds2)].sort()
    );
  });

  it('reference not changed: its owner', () => {
    const pod = ownedBy(ds1);
    expect(updatePod(view(ds1, ds2), pod, next(pod)).keys).toEqual([
      keyOf(ds1),
    ]);
  });

  it('orphan changed without a label change: nothing', () => {
    const orphan = newPod('pod-', 'node-0', simpleDaemonSetLabel);
    expect(updatePod(view(ds1, ds2), orphan, next(orphan)).keys).toEqual([]);
  });

  it('reference changed to none, new labels matching two others: old owner and both', () => {
    const pod = ownedBy(ds1);
    const cur = next(pod, (p) => {
      if (p.metadata) {
        p.metadata.ownerReferences = [];
        p.metadata.labels = { app: 'other', ...simpleDaemonSetLabel };
      }
    });
    expect(updatePod(view(ds1, ds2, ds3), pod, cur).keys.sort()).toEqual(
      [keyOf(ds1), keyOf(ds2), keyOf(ds3)].sort()
    );
  });
});

describe('TestEnqueueRequestForNodeCreate', () => {
  it('a node with a taint no DaemonSet tolerates enqueues nothing', () => {
    const node = newNode('tainted');
    if (node.spec) {
      node.spec.taints = [
        { key: 'dedicated', value: 'x', effect: 'NoSchedule' },
      ];
    } else {
      node.spec = {
        taints: [{ key: 'dedicated', value: 'x', effect: 'NoSchedule' }],
      };
    }
    expect(addNode(view(ads('ds1'), ads('ds2')), node, []).keys).toEqual([]);
  });

  it('a node both DaemonSets fit enqueues both', () => {
    const ds1 = ads('ds1');
    const ds2 = ads('ds2');
    expect(addNode(view(ds1, ds2), newNode('fits'), []).keys).toEqual([
      keyOf(ds1),
      keyOf(ds2),
    ]);
  });
});
