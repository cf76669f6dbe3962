/**
 * End to end on the serverless runtime: template changes roll out under the
 * DaemonSet's update strategy. The rolling-update bounds are checked
 * continuously (a sampler lists the pods every ~25 ms from the template
 * change to convergence), not only at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import { createAgentDaemonSet } from '../../testbed/kube-fixtures.js';
import {
  deletePod,
  getAgent,
  isConverged,
  isPodAvailable,
  livePodsByNode,
  podUidsByNode,
  setAgentImage,
} from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { RolloutSampler } from './rollout-sampler.js';
import { eventually } from './stack.js';

/**
 * Enough samples that a bound broken during one node's turn (several hundred
 * ms: delete observed, pod created, bound, made Ready) would be seen.
 */
const MIN_SAMPLES = 20;

const ROLLOUT_TIMEOUT_MS = 90_000;

/** Starts a 5-node scenario whose DaemonSet has converged on `agent:1`. */
const startConverged = async (
  prefix: string,
  updateStrategy: unknown
): Promise<E2eScenario> => {
  const s = await E2eScenario.start(prefix, { nodes: 5 });
  await createAgentDaemonSet(s.admin, s.ns, s.selector, 'agent:1', {
    updateStrategy,
  });
  const ms = await eventually(
    'initial convergence',
    () => isConverged(s.admin, s.ns, s.nodes),
    60_000
  );
  console.log(`${prefix}: converged on 5 nodes in ${ms} ms`);
  return s;
};

/** Changes the image and samples until every node runs `agent:2`. */
const rollOut = async (s: E2eScenario) => {
  const sampler = RolloutSampler.start(s.admin, s.ns, s.nodes);
  let ms: number;
  try {
    await setAgentImage(s.admin, s.ns, 'agent:2');
    ms = await eventually(
      'rollout to agent:2',
      () => isConverged(s.admin, s.ns, s.nodes, 'agent:2'),
      ROLLOUT_TIMEOUT_MS,
      100
    );
  } catch (e) {
    // The rollout's failure is the one to report; a sampler failure too
    // would only hide it.
    await sampler.stop().catch(() => undefined);
    throw e;
  }
  return { ms, worst: await sampler.stop() };
};

describe('serverless runtime: RollingUpdate with maxUnavailable 1', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);

  beforeAll(async () => {
    s = await startConverged('sls-ru', {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 1 },
    });
  });

  afterAll(async () => {
    await s?.close();
  });

  it('never leaves more than one eligible node without an available pod', async () => {
    // Act
    const { ms, worst } = await rollOut(s);
    // Assess
    console.log(`maxUnavailable 1: rolled out in ${ms} ms`, worst);
    expect(worst.samples).toBeGreaterThanOrEqual(MIN_SAMPLES);
    // The budget is used (the sampler sees the gaps) and never exceeded.
    expect(worst.maxUnavailableNodes).toBe(1);
    expect(worst.maxPodsOnNode).toBe(1);
  });
});

describe('serverless runtime: RollingUpdate with maxSurge 1', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);

  beforeAll(async () => {
    s = await startConverged('sls-surge', {
      type: 'RollingUpdate',
      rollingUpdate: { maxUnavailable: 0, maxSurge: 1 },
    });
  });

  afterAll(async () => {
    await s?.close();
  });

  it('keeps every node available and surges one node at a time', async () => {
    // Act
    const { ms, worst } = await rollOut(s);
    // Assess
    console.log(`maxSurge 1: rolled out in ${ms} ms`, worst);
    expect(worst.samples).toBeGreaterThanOrEqual(MIN_SAMPLES);
    expect(worst.minAvailableNodes).toBe(5);
    // The surge is seen (two pods on a node) and never exceeded.
    expect(worst.maxPodsOnNode).toBe(2);
    expect(worst.maxSurgeNodes).toBe(1);
  });
});

describe('serverless runtime: OnDelete', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);

  beforeAll(async () => {
    s = await startConverged('sls-ondelete', { type: 'OnDelete' });
  });

  afterAll(async () => {
    await s?.close();
  });

  it('leaves every pod alone when the template changes', async () => {
    // Prepare
    const before = await podUidsByNode(s.admin, s.ns);
    // Act
    await setAgentImage(s.admin, s.ns, 'agent:2');
    const ms = await eventually('new generation observed', async () => {
      const ds = await getAgent(s.admin, s.ns);
      return (
        (ds.metadata?.generation ?? 0) > 1 &&
        ds.status?.observedGeneration === ds.metadata?.generation
      );
    });
    console.log(`OnDelete: generation 2 observed in ${ms} ms`);
    // Assess
    const ds = await getAgent(s.admin, s.ns);
    expect(ds.status?.updatedNumberScheduled ?? 0).toBe(0);
    expect(ds.status?.numberAvailable).toBe(5);
    expect(await podUidsByNode(s.admin, s.ns)).toEqual(before);
    const byNode = await livePodsByNode(s.admin, s.ns);
    const images = [...byNode.values()].flatMap((pods) =>
      pods.map((p) => p.spec?.containers[0]?.image)
    );
    expect(images).toEqual(Array(5).fill('agent:1'));
  });

  it('recreates a deleted pod from the new template', async () => {
    // Prepare
    const [node, ...others] = s.nodes as [string, ...string[]];
    const before = await podUidsByNode(s.admin, s.ns);
    const [victim] = (await livePodsByNode(s.admin, s.ns)).get(node) ?? [];
    expect((await getAgent(s.admin, s.ns)).metadata?.generation).toBe(2);
    // Act
    await deletePod(s.admin, s.ns, victim?.metadata?.name ?? '');
    const ms = await eventually(
      'replacement from the new template',
      async () => {
        const pods = (await livePodsByNode(s.admin, s.ns)).get(node) ?? [];
        return (
          pods.length === 1 &&
          pods[0]?.metadata?.uid !== victim?.metadata?.uid &&
          pods.every(isPodAvailable)
        );
      }
    );
    console.log(`OnDelete: deleted pod replaced in ${ms} ms`);
    // Assess
    const byNode = await livePodsByNode(s.admin, s.ns);
    expect(byNode.get(node)?.[0]?.spec?.containers[0]?.image).toBe('agent:2');
    const after = await podUidsByNode(s.admin, s.ns);
    for (const other of others) expect(after[other]).toEqual(before[other]);
    for (const other of others) {
      expect(byNode.get(other)?.[0]?.spec?.containers[0]?.image).toBe(
        'agent:1'
      );
    }
  });
});
