/**
 * The campaign checker's unavailable budget against the real control plane
 * (see campaign-checker.test.ts for the hand-played controller): a deletion
 * is judged when it is seen, against the budget in force then, and with the
 * checker's slack in the controller's favour.
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
  deletePod,
  getDaemonSet,
  setUpdateStrategy,
} from '../campaign/checker/hand-controller.js';
import { InvariantChecker } from '../campaign/checker/invariant-checker.js';
import type { DaemonSet, Pod } from '../campaign/checker/kube-objects.js';
import {
  createDaemonSet,
  createNamespace,
  deleteNamespace,
} from '../testbed/kube-fixtures.js';
import { adminHttp } from './sync-loop.js';

const RUN = `cb${Date.now().toString(36)}`;
const RUN_LABEL = { key: 'campaign.dsr.test/run', value: RUN };
const SELECTOR = { [RUN_LABEL.key]: RUN, role: 'agent' };
/** Longer than the checker's cross-watch hold (2 s) plus a tick. */
const SETTLE_MS = 2_500;
/** The checker's default slack. */
const SLACK_MS = 4_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const podsPath = (ns: string) => `/api/v1/namespaces/${ns}/pods`;

describe('InvariantChecker unavailable budget (integration)', () => {
  let http: KubeHttp;
  let nodes: string[] = [];
  const node = (i: number) => nodes[i] ?? '';

  /** A namespace, a checker and DaemonSet `agent` with maxUnavailable 1. */
  const setUp = async () => {
    const ns = `cb-${Date.now().toString(36)}`;
    await createNamespace(http, ns);
    const checker = await InvariantChecker.start({
      kubeconfigPath: inject('kubeconfigPath'),
      namespace: ns,
      nodeLabel: RUN_LABEL,
    });
    onTestFinished(async () => {
      await checker.stop();
      await deleteNamespace(http, ns);
    });
    await createDaemonSet(http, ns, 'agent', SELECTOR, 'agent:1', {
      updateStrategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 1 },
      },
    });
    const owner = await getDaemonSet(http, ns, 'agent');
    const budgetViolation = () =>
      vi.waitFor(
        () => {
          const found = checker
            .violations()
            .find((v) => v.invariant === 'unavailable-within-budget');
          if (!found) throw new Error('no unavailable-within-budget yet');
          return found;
        },
        { timeout: 15_000, interval: 100 }
      );
    return { ns, checker, owner, budgetViolation };
  };

  /** Waits until KWOK made the pods Ready (by the API server). */
  const waitReady = (ns: string, names: string[]) =>
    vi.waitFor(
      async () => {
        const pods = await http.list<Pod>('list pods', podsPath(ns));
        const ready = pods.filter(isReady).map((p) => p.metadata.name);
        expect(ready).toEqual(expect.arrayContaining(names));
      },
      { timeout: 30_000, interval: 100 }
    );

  /** Puts `agent-<i>` on nodes 0..n-1 and waits until they count as available beyond the slack. */
  const availablePods = async (ns: string, owner: DaemonSet, n: number) => {
    const names = nodes.slice(0, n).map((_, i) => `agent-${i}`);
    for (const [i, name] of names.entries()) {
      await createPod(http, ns, name, node(i), owner);
    }
    await waitReady(ns, names);
    await sleep(SETTLE_MS + SLACK_MS);
  };

  beforeAll(async () => {
    http = adminHttp();
    nodes = await createNodes(http, 3, {
      prefix: `${RUN}-ok-`,
      labels: SELECTOR,
    });
  });

  afterAll(async () => {
    await deleteNodes(http, nodes);
    http.close();
  });

  it('counts deletions against maxUnavailable, except those marked chaos', async () => {
    // Prepare
    const { ns, checker, owner, budgetViolation } = await setUp();
    await availablePods(ns, owner, 3);
    // Act: a chaos deletion and one by "the controller" stay within budget.
    checker.markChaos('agent-0');
    await deletePod(http, ns, 'agent-0');
    await deletePod(http, ns, 'agent-1');
    await sleep(SETTLE_MS);
    // Assess
    expect(checker.violations()).toEqual([]);
    // Act: a second controller deletion exceeds it.
    await deletePod(http, ns, 'agent-2');
    // Assess
    const v = await budgetViolation();
    expect(v).toMatchObject({ daemonSet: `${ns}/agent`, node: node(2) });
    expect(v.detail).toContain(`${node(1)} by agent-1, ${node(2)} by agent-2`);
    expect(v.detail).toContain('budget 1');
    expect(v.detail).not.toContain('agent-0');
  });

  it('judges a deletion against the budget in force then, not a later switch to surge', async () => {
    // Prepare
    const { ns, checker, owner, budgetViolation } = await setUp();
    await availablePods(ns, owner, 3);
    await deletePod(http, ns, 'agent-1');
    await sleep(SETTLE_MS);
    // Act: surge makes the budget 0; the earlier deletion stays within 1.
    await setUpdateStrategy(http, owner, {
      type: 'RollingUpdate',
      rollingUpdate: { maxSurge: 1, maxUnavailable: 0 },
    });
    await sleep(SETTLE_MS + SLACK_MS);
    // Assess
    expect(checker.violations()).toEqual([]);
    // Act: a deletion under the new spec is judged against budget 0.
    await deletePod(http, ns, 'agent-2');
    // Assess
    const v = await budgetViolation();
    expect(v.node).toBe(node(2));
    expect(v.detail).toContain('budget 0');
    expect(v.detail).toContain('maxSurge 1');
  });

  it('does not count the deletion of a pod that turned Ready less than the slack before', async () => {
    // Prepare
    const { ns, checker, owner, budgetViolation } = await setUp();
    await availablePods(ns, owner, 2);
    await deletePod(http, ns, 'agent-0');
    // Act: a pod that just turned Ready is deleted at once.
    await createPod(http, ns, 'agent-fresh', node(2), owner);
    await waitReady(ns, ['agent-fresh']);
    await deletePod(http, ns, 'agent-fresh');
    await sleep(SETTLE_MS);
    // Assess
    expect(checker.violations()).toEqual([]);
    // Act: an old available pod's deletion still counts.
    await deletePod(http, ns, 'agent-1');
    // Assess
    const v = await budgetViolation();
    expect(v.detail).toContain(`${node(0)} by agent-0, ${node(1)} by agent-1`);
    expect(v.detail).not.toContain('agent-fresh');
  });
});
