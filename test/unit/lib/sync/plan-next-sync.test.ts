import { describe, expect, it } from 'vitest';
import { getTargetNodeName } from '#lib/reconcile/k8s/node-affinity.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import { failedPodsBackoffKey } from '#lib/reconcile/pods-should-be-on-node.js';
import {
  DryRunBackoff,
  DryRunExpectations,
  DryRunWrites,
  type PlannedWrite,
} from '#lib/sync/dry-run-ports.js';
import { keepingReads, planNextSync } from '#lib/sync/plan-next-sync.js';
import {
  makeFailedPods,
  makeNodes,
  makePods,
  newDaemonSet,
  simpleDaemonSetLabel,
} from '../../../helpers/builders.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';
import {
  addDaemonSet,
  CLUSTER,
  keyOf,
  newHarness,
  sync,
} from '../../../helpers/harness.js';

const created = (writes: readonly PlannedWrite[]) =>
  writes.flatMap((w) => (w.verb === 'create-pod' ? [w.node] : []));

describe('planNextSync (a dry run of syncDaemonSet)', () => {
  it('plans exactly the creates the sync then makes, and writes nothing', async () => {
    // Prepare
    const h = newHarness();
    h.cluster.nodes.push(...makeNodes(0, 3));
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    // Act
    const next = await planNextSync(keyOf(ds), {
      reader: h.cluster,
      clock: h.clock,
    });
    const untouched = h.cluster.pods.length + h.cluster.revisions.length;
    await sync(h, ds);
    // Assess
    expect(untouched).toBe(0);
    expect(created(next.writes).sort()).toEqual(
      h.cluster.created.map((p) => getTargetNodeName(p)).sort()
    );
    expect(next.writes.map((w) => w.verb)).toContain('create-revision');
    expect(next.writes.map((w) => w.verb)).toContain('update-status');
    expect(next.hash).toBe(
      h.cluster.created[0]?.metadata?.labels?.['controller-revision-hash']
    );
    expect(next.nodes).toHaveLength(3);
    expect(next.stateRead).toBe(false);
    expect(next.expectationsMet).toBe(true);
  });

  it('answers without a DaemonSet when it does not exist', async () => {
    // Act
    const next = await planNextSync(`${CLUSTER}/default/none`, {
      reader: newHarness().cluster,
      clock: new FakeClock(),
    });
    // Assess
    expect(next.daemonSet).toBeUndefined();
    expect(next.writes).toEqual([]);
  });

  it("reads the reconcilers' expectations: unmet ones hold the creates back", async () => {
    // Prepare
    const h = newHarness();
    h.cluster.nodes.push(...makeNodes(0, 2));
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    await h.expectations.setExpectations(keyOf(ds), 2, 0);
    // Act
    const next = await planNextSync(keyOf(ds), {
      reader: h.cluster,
      clock: h.clock,
      state: { expectations: h.expectations, failedPodBackoff: h.backoff },
    });
    // Assess
    expect(next.expectationsMet).toBe(false);
    expect(created(next.writes)).toEqual([]);
    expect(next.stateRead).toBe(true);
  });

  it("reads failed-pod backoff from the reconcilers' state and keeps its own writes", async () => {
    // Prepare
    const h = newHarness();
    h.cluster.nodes.push(...makeNodes(0, 1));
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    h.cluster.pods.push(
      ...makeFailedPods('node-0', simpleDaemonSetLabel, ds, 1)
    );
    const id = `${CLUSTER}/${failedPodsBackoffKey(ds, 'node-0')}`;
    const entry = { delayMs: 60_000, lastUpdateMs: h.clock.now() };
    await h.backoff.put(id, entry);
    // Act
    const next = await planNextSync(keyOf(ds), {
      reader: h.cluster,
      clock: h.clock,
      state: { expectations: h.expectations, failedPodBackoff: h.backoff },
    });
    // Assess: in backoff, so the failed pod stays and nothing is created.
    expect(next.backoff.get(id)).toEqual(entry);
    expect(next.writes.filter((w) => w.verb === 'delete-pod')).toEqual([]);
    expect(h.backoff.entries.get(id)).toEqual(entry);
  });

  it('reports the error a sync would fail with', async () => {
    // Prepare
    const h = newHarness();
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    h.cluster.listNodes = async () => {
      throw new Error('nodes unreadable');
    };
    // Act
    const next = await planNextSync(keyOf(ds), {
      reader: h.cluster,
      clock: h.clock,
    });
    // Assess
    expect(next.error).toBe('nodes unreadable');
    expect(next.daemonSet?.metadata?.name).toBe('agent');
  });

  it('plans an orphan adoption as a pod patch, read through getDaemonSetFresh', async () => {
    // Prepare
    const h = newHarness();
    h.cluster.nodes.push(...makeNodes(0, 1));
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const [orphan] = makePods('node-0', simpleDaemonSetLabel, undefined, 1);
    h.cluster.pods.push(orphan as NonNullable<typeof orphan>);
    // Act
    const next = await planNextSync(keyOf(ds), {
      reader: h.cluster,
      clock: h.clock,
    });
    // Assess
    expect(next.writes).toContainEqual(
      expect.objectContaining({
        verb: 'patch-pod',
        pod: orphan?.metadata?.name,
      })
    );
    expect(h.cluster.patches).toEqual([]);
  });
});

describe('DryRunWrites', () => {
  it('records every write in order and succeeds as the API would', async () => {
    // Prepare
    const w = new DryRunWrites();
    const ds: DaemonSet = newDaemonSet('agent');
    const revision = { metadata: { name: 'agent-1' }, revision: 1 };
    const patch = { type: 'strategic' as const, body: '{}' };
    // Act
    await w.createPod('ns', { spec: { containers: [], nodeName: 'n' } }, ds);
    await w.deletePod('ns', 'p', ds);
    await w.patchPod('ns', 'p', patch);
    await w.patchPodStatus('ns', 'p', patch);
    const createdRevision = await w.createRevision('ns', revision);
    await w.updateRevision('ns', revision);
    await w.patchRevision('ns', 'agent-1');
    await w.deleteRevision('ns', 'agent-1');
    await w.updateStatus(ds);
    await w.updateStatus({ ...ds, status: undefined });
    await w.record(ds, 'Warning', 'FailedDaemonPod', 'm');
    // Assess
    expect(createdRevision).toBe(revision);
    expect(w.writes.map((x) => x.verb)).toEqual([
      'create-pod',
      'delete-pod',
      'patch-pod',
      'patch-pod',
      'create-revision',
      'update-revision',
      'patch-revision',
      'delete-revision',
      'update-status',
      'event',
    ]);
    expect(w.writes[0]).toEqual({ verb: 'create-pod', node: 'n' });
  });

  it('records a pod without a target node and a revision without a name', async () => {
    // Prepare
    const w = new DryRunWrites();
    // Act
    await w.createPod('ns', { spec: { containers: [] } }, newDaemonSet('a'));
    await w.createRevision('ns', { revision: 1 });
    await w.updateRevision('ns', { revision: 1 });
    // Assess
    expect(w.writes).toEqual([
      { verb: 'create-pod', node: '' },
      { verb: 'create-revision', revision: '' },
      { verb: 'update-revision', revision: '' },
    ]);
  });
});

describe('DryRunExpectations', () => {
  it('reads the base until it sets its own, and keeps its writes', async () => {
    // Prepare
    const h = newHarness();
    await h.expectations.setExpectations('k', 1, 0);
    const dry = new DryRunExpectations(h.clock, h.expectations);
    // Act
    const before = await dry.satisfiedExpectations('k');
    await dry.setExpectations('k', 0, 2);
    const afterSet = await dry.satisfiedExpectations('k');
    await dry.deletionObserved('k');
    await dry.deletionObserved('k');
    const afterObserved = await dry.satisfiedExpectations('k');
    // Assess
    expect(before).toBe(false);
    expect(afterSet).toBe(false);
    expect(afterObserved).toBe(true);
    expect(await h.expectations.satisfiedExpectations('k')).toBe(false);
  });

  it('counts creations, ignores lowering an absent record and drops on delete', async () => {
    // Prepare
    const dry = new DryRunExpectations(new FakeClock());
    // Act
    await dry.creationObserved('absent');
    await dry.setExpectations('k', 1, 0);
    await dry.creationObserved('k');
    const met = await dry.satisfiedExpectations('k');
    await dry.setExpectations('j', 5, 5);
    await dry.deleteExpectations('j');
    // Assess
    expect(await dry.satisfiedExpectations('absent')).toBe(true);
    expect(met).toBe(true);
    expect(await dry.satisfiedExpectations('j')).toBe(true);
  });
});

describe('DryRunBackoff', () => {
  it('serves its own writes before the base and remembers what it read', async () => {
    // Prepare
    const dry = new DryRunBackoff();
    const entry = { delayMs: 1_000, lastUpdateMs: 5 };
    // Act
    const none = await dry.get('id');
    await dry.put('id', entry);
    // Assess
    expect(none).toBeUndefined();
    expect(await dry.get('id')).toEqual(entry);
    expect(dry.read.size).toBe(0);
  });
});

describe('keepingReads', () => {
  it('passes every read through and keeps the DaemonSet, nodes and pods', async () => {
    // Prepare
    const h = newHarness();
    h.cluster.nodes.push(...makeNodes(0, 1));
    const ds = addDaemonSet(h, newDaemonSet('agent'));
    const [pod] = makePods('node-0', simpleDaemonSetLabel, ds, 1);
    h.cluster.pods.push(pod as NonNullable<typeof pod>);
    const { wrapped, seen } = keepingReads(h.cluster);
    // Act
    await wrapped.getDaemonSet('default', 'agent');
    const fresh = await wrapped.getDaemonSetFresh('default', 'agent');
    await wrapped.listNodes();
    await wrapped.listPods('default', ds);
    const one = await wrapped.getPod('default', pod?.metadata?.name ?? '');
    const revisions = await wrapped.listControllerRevisions('default');
    const revision = await wrapped.getControllerRevisionFresh('default', 'x');
    // Assess
    expect(seen.daemonSet?.metadata?.uid).toBe(ds.metadata?.uid);
    expect(fresh?.metadata?.uid).toBe(ds.metadata?.uid);
    expect(seen.nodes).toHaveLength(1);
    expect(seen.pods).toHaveLength(1);
    expect(one?.metadata?.name).toBe(pod?.metadata?.name);
    expect(revisions).toEqual([]);
    expect(revision).toBeUndefined();
  });
});
