/**
 * The campaign's invariant checker against the real control plane. No
 * DaemonSet controller runs in this test bed, so each test plays the
 * controller by hand (pods with a controller ownerReference, bound by
 * nodeName, made Ready by KWOK; status written through the subresource)
 * and shows an invariant holding, then broken. Each test has its own
 * namespace and checker; the nodes are shared.
 */
import {
  afterAll,
  beforeAll,
  describe,
  expect,
  inject,
  it,
  onTestFinished,
  vi,
} from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import {
  createNodes,
  deleteNodes,
} from '#lib/local-cluster/simulated-nodes.js';
import { isReady } from '../campaign/checker/cluster-view.js';
import {
  createPod,
  createRevision,
  deletePod,
  getDaemonSet,
  labelPod,
  writeStatus,
} from '../campaign/checker/hand-controller.js';
import {
  InvariantChecker,
  type InvariantName,
} from '../campaign/checker/invariant-checker.js';
import type { DaemonSet, Pod } from '../campaign/checker/kube-objects.js';
import {
  createDaemonSet,
  createNamespace,
  deleteNamespace,
} from '../testbed/kube-fixtures.js';
import { adminHttp } from './sync-loop.js';

const RUN = `cc${Date.now().toString(36)}`;
const RUN_LABEL = { key: 'campaign.dsr.test/run', value: RUN };
/** The test DaemonSets' nodeSelector; the "bare" node lacks `role`. */
const SELECTOR = { [RUN_LABEL.key]: RUN, role: 'agent' };
/** Longer than the checker's cross-watch hold (2 s) plus a tick. */
const SETTLE_MS = 2_500;

const rolling = (rollingUpdate: object) => ({
  updateStrategy: { type: 'RollingUpdate', rollingUpdate },
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const podsPath = (ns: string) => `/api/v1/namespaces/${ns}/pods`;

describe('InvariantChecker (integration)', () => {
  let http: KubeHttp;
  let eligible: string[] = [];
  let bare = '';
  const node = (i: number) => eligible[i] ?? '';

  /** A namespace and a checker of its own, both removed after the test. */
  const setUp = async (ineligibleGraceMs?: number) => {
    const ns = `cc-${Date.now().toString(36)}`;
    await createNamespace(http, ns);
    const checker = await InvariantChecker.start({
      kubeconfigPath: inject('kubeconfigPath'),
      namespace: ns,
      nodeLabel: RUN_LABEL,
      ...(ineligibleGraceMs ? { ineligibleGraceMs } : {}),
    });
    onTestFinished(async () => {
      await checker.stop();
      await deleteNamespace(http, ns);
    });
    const waitViolation = (invariant: InvariantName) =>
      vi.waitFor(
        () => {
          const found = checker
            .violations()
            .find((v) => v.invariant === invariant);
          if (!found) throw new Error(`no ${invariant} yet`);
          return found;
        },
        { timeout: 15_000, interval: 100 }
      );
    return { ns, checker, waitViolation };
  };

  const createOwner = async (ns: string, name: string, spec = {}) => {
    await createDaemonSet(http, ns, name, SELECTOR, 'agent:1', spec);
    return getDaemonSet(http, ns, name);
  };

  /** Waits until KWOK made the pods Ready and the checker has seen it. */
  const waitReady = async (ns: string, names: string[]) => {
    await vi.waitFor(
      async () => {
        const pods = await http.list<Pod>('list pods', podsPath(ns));
        const ready = pods.filter(isReady).map((p) => p.metadata.name);
        expect(ready).toEqual(expect.arrayContaining(names));
      },
      { timeout: 30_000, interval: 200 }
    );
    await sleep(SETTLE_MS);
  };

  /** Puts pod `agent-<i>` on every eligible node, as the controller would. */
  const podPerEligibleNode = async (ns: string, owner: DaemonSet) => {
    const names = eligible.map((_, i) => `agent-${i}`);
    for (const [i, name] of names.entries()) {
      await createPod(http, ns, name, node(i), owner);
    }
    await waitReady(ns, names);
  };

  /** Writes the status upstream would for one pod per eligible node. */
  const writeSettledStatus = (owner: DaemonSet, misscheduled: number) =>
    writeStatus(http, owner, {
      observedGeneration: owner.metadata.generation ?? 0,
      desiredNumberScheduled: eligible.length,
      currentNumberScheduled: eligible.length,
      numberMisscheduled: misscheduled,
      numberReady: eligible.length,
      numberAvailable: eligible.length,
      updatedNumberScheduled: eligible.length,
    });

  beforeAll(async () => {
    http = adminHttp();
    eligible = await createNodes(http, 3, {
      prefix: `${RUN}-ok-`,
      labels: SELECTOR,
    });
    [bare = ''] = await createNodes(http, 1, {
      prefix: `${RUN}-bare-`,
      labels: { [RUN_LABEL.key]: RUN },
    });
  });

  afterAll(async () => {
    await deleteNodes(http, [...eligible, bare]);
    http.close();
  });

  it('reports a second live pod of a DaemonSet on one node', async () => {
    // Prepare
    const { ns, checker, waitViolation } = await setUp();
    const owner = await createOwner(ns, 'agent');
    await createPod(http, ns, 'agent-a', node(0), owner);
    await waitReady(ns, ['agent-a']);
    expect(checker.violations()).toEqual([]);
    // Act
    await createPod(http, ns, 'agent-b', node(0), owner);
    // Assess
    const v = await waitViolation('one-daemon-pod-per-node');
    expect(v).toMatchObject({ daemonSet: `${ns}/agent`, node: node(0) });
    expect(v.detail).toContain('agent-b');
    const history = checker.minimalHistory(v).map((e) => e.text);
    expect(history.some((text) => text.includes('pod agent-b'))).toBe(true);
  });

  it('allows two pods per node while the DaemonSet allows surge, not three', async () => {
    // Prepare
    const { ns, checker, waitViolation } = await setUp();
    const spec = rolling({ maxSurge: 1, maxUnavailable: 0 });
    const owner = await createOwner(ns, 'surge', spec);
    await createPod(http, ns, 'surge-old', node(1), owner, 'h1');
    await createPod(http, ns, 'surge-new', node(1), owner, 'h2');
    await waitReady(ns, ['surge-old', 'surge-new']);
    expect(checker.violations()).toEqual([]);
    // Act
    await createPod(http, ns, 'surge-third', node(1), owner, 'h2');
    // Assess
    const v = await waitViolation('one-daemon-pod-per-node');
    expect(v.detail).toContain('3 live daemon pods');
    expect(v.detail).toContain('limit 2');
  });

  it('reports a pod left on a node that must not run it beyond the unblocked grace', async () => {
    // Prepare
    const { ns, checker, waitViolation } = await setUp(2_000);
    const owner = await createOwner(ns, 'agent');
    checker.setControllerBlocked(true);
    await createPod(http, ns, 'agent-ok', node(0), owner);
    await createPod(http, ns, 'agent-stray', bare, owner);
    await waitReady(ns, ['agent-ok', 'agent-stray']);
    await sleep(2_000);
    expect(checker.violations()).toEqual([]);
    // Act
    const unblockedAt = Date.now();
    checker.setControllerBlocked(false);
    // Assess
    const v = await waitViolation('no-pod-on-ineligible-node');
    expect(v).toMatchObject({ node: bare, pod: 'agent-stray' });
    expect(v.detail).toContain('nodeSelector role=agent unmet');
    expect(v.atMs - unblockedAt).toBeGreaterThanOrEqual(2_000);
    expect(checker.violations()).toHaveLength(1);
  });

  it('reports a foreign pod changed without notice, not one changed after expectForeignChange', async () => {
    // Prepare
    const { ns, checker, waitViolation } = await setUp();
    await createOwner(ns, 'agent');
    await createPod(http, ns, 'visitor-a', node(0));
    await createPod(http, ns, 'visitor-b', node(0));
    checker.markForeign('visitor-a');
    checker.markForeign('visitor-b');
    await waitReady(ns, ['visitor-a', 'visitor-b']);
    // Act
    checker.expectForeignChange('visitor-b');
    await deletePod(http, ns, 'visitor-b');
    await labelPod(http, ns, 'visitor-a', { touched: 'yes' });
    // Assess
    const v = await waitViolation('foreign-pods-untouched');
    expect(v.pod).toBe('visitor-a');
    expect(v.detail).toContain('touched');
    await sleep(SETTLE_MS);
    expect(checker.violations()).toHaveLength(1);
  });

  it('reports a pod without a controller after its grace, not one marked foreign', async () => {
    // Prepare
    const { ns, checker, waitViolation } = await setUp();
    await createOwner(ns, 'agent');
    // Act
    await createPod(http, ns, 'visitor', node(0));
    checker.markForeign('visitor');
    const strayAt = Date.now();
    await createPod(http, ns, 'stray', node(1));
    // Assess
    const v = await waitViolation('only-controller-pods');
    expect(v).toMatchObject({ pod: 'stray', node: node(1) });
    expect(v.detail).toContain('has no controller');
    // creationTimestamp is truncated to the second.
    expect(v.atMs - strayAt).toBeGreaterThanOrEqual(4_000);
    await sleep(SETTLE_MS);
    expect(checker.violations()).toHaveLength(1);
  });

  it('converges when status and pods are right, and names the node without a pod when not', async () => {
    // Prepare
    const { ns, checker } = await setUp();
    const owner = await createOwner(ns, 'agent');
    await createRevision(http, owner, 'h1');
    await podPerEligibleNode(ns, owner);
    await writeSettledStatus(owner, 0);
    // Act
    const converged = await checker.awaitConvergence(10_000);
    await deletePod(http, ns, 'agent-2');
    await sleep(SETTLE_MS);
    const diverged = await checker.awaitConvergence(1_000);
    // Assess
    expect(converged.ok).toBe(true);
    expect(diverged).toMatchObject({
      ok: false,
      violation: {
        invariant: 'converges-after-faults',
        daemonSet: `${ns}/agent`,
        node: node(2),
        detail: expect.stringContaining(`node ${node(2)} has no pod`),
      },
    });
    expect(checker.violations()).toEqual([]);
  });

  it('converges with a pod kept on a node that only refuses new ones (NoSchedule), counted misscheduled', async () => {
    // Prepare
    const { ns, checker } = await setUp();
    const owner = await createOwner(ns, 'agent');
    await createRevision(http, owner, 'h1');
    await podPerEligibleNode(ns, owner);
    const taint = { key: 'campaign.dsr.test/keep', effect: 'NoSchedule' };
    const kept = await createNodes(http, 1, {
      prefix: `${RUN}-keep-`,
      labels: SELECTOR,
      taints: [taint],
    });
    onTestFinished(() => deleteNodes(http, kept));
    await createPod(http, ns, 'agent-kept', kept[0] ?? '', owner);
    await waitReady(ns, ['agent-kept']);
    // Act
    await writeSettledStatus(owner, 1);
    const converged = await checker.awaitConvergence(10_000);
    // Assess
    expect(converged.ok).toBe(true);
    expect(checker.violations()).toEqual([]);
  });
});
