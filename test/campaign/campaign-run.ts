/**
 * One campaign run: on each of its clusters (one, or `--clusters C`) a
 * namespace with its own nodes and an invariant checker watching from the
 * start to the end; the product's serverless stack reaching every cluster
 * under the reconciler's least-privilege role through a fault proxy; a
 * random workload and random faults for a while, then no faults and no
 * workload until every DaemonSet has converged.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import { CountingProxy } from '../bench/counting-proxy.js';
import { LambdaContainers } from '../helpers/lambda-containers.js';
import { ServerlessStack } from '../integration/serverless/stack.js';
import { ActiveFaults } from './active-faults.js';
import { dynamodbCallKinds } from './dynamodb-call-kinds.js';
import { describePlan } from './fault-plan.js';
import { onCluster, type RunCluster, setUpRunCluster } from './run-cluster.js';
import { ownershipOf } from './run-kind.js';
import {
  convergedEverywhere,
  leftOnQueues,
  runTimeline,
  settledAfterConvergence,
} from './run-support.js';
import {
  type CampaignBed,
  harnessFailure,
  planOf,
  planted,
  type RunOptions,
  type RunResult,
} from './run-types.js';
import { SeededRandom } from './seeded-random.js';

export type {
  CampaignBed,
  ClusterBed,
  PlantedBug,
  RunCost,
  RunOptions,
  RunResult,
} from './run-types.js';
export { planOf } from './run-types.js';

/**
 * Runs one seed and returns what it found; a run the harness could not
 * carry out comes back with `error`, never as a pass.
 */
export const runCampaignRun = async (
  bed: CampaignBed,
  o: RunOptions
): Promise<RunResult> => {
  const started = Date.now();
  const planned = planOf(o);
  try {
    return await runPlanned(bed, o, planned, started);
  } catch (e) {
    // The harness failed (set-up, the cluster's own API): the run proves nothing.
    return harnessFailure(o, planned, e, Date.now() - started);
  }
};

const runPlanned = async (
  bed: CampaignBed,
  o: RunOptions,
  { plan, actions, kind, otherClusters }: ReturnType<typeof planOf>,
  started: number
): Promise<RunResult> => {
  const random = new SeededRandom(o.seed);
  const ns = `camp-${o.seed.toString(36)}-${Date.now().toString(36).slice(-4)}`;
  const beds = [bed, ...(bed.tenants ?? [])];
  if (otherClusters.length >= beds.length) {
    throw new Error(
      `the run wants ${otherClusters.length + 1} clusters, the bed has ${beds.length}`
    );
  }
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const faults = new ActiveFaults(plan, random.fork('faults'));
    const specs = [
      { kind, plan, faults, label: '', ns, targets: 'targets' },
      ...otherClusters.map((c, i) => ({
        ...c,
        faults: new ActiveFaults(c.plan, random.fork(`faults-${i + 1}`)),
        label: `cluster ${i + 1}`,
        ns: `${ns}-c${i + 1}`,
        targets: `targets-${i + 1}`,
      })),
    ];
    const clusters: RunCluster[] = [];
    for (const [i, s] of specs.entries()) {
      clusters.push(
        await setUpRunCluster(
          bed,
          {
            ...s,
            cluster: beds[i] ?? bed,
            nodes: o.nodes,
            random: random.fork(s.targets),
            decide: s.faults.api,
          },
          cleanups
        )
      );
    }
    const [first] = clusters as [RunCluster, ...RunCluster[]];
    const note = (text: string) => {
      for (const c of clusters) c.checker.note(text);
    };
    const dynamodb = await CountingProxy.start(bed.dynamodbEndpoint);
    const sqs = await CountingProxy.start(bed.sqsEndpoint);
    cleanups.push(
      () => dynamodb.close(),
      () => sqs.close()
    );
    dynamodb.interfere = faults.dynamodb;
    sqs.interfere = faults.sqs;
    let containers: LambdaContainers | undefined;
    let faultsBegan = started;
    const stack = await ServerlessStack.start({
      kubeconfigPath: first.kubeconfigPath,
      endpoints: { dynamodb: bed.dynamodbEndpoint, sqs: bed.sqsEndpoint },
      productEndpoints: { dynamodb: dynamodb.endpoint, sqs: sqs.endpoint },
      // Short bridge turns: more hand-overs and bridge starts for the
      // faults to hit.
      bridgeWatchSeconds: 5,
      ...(kind === 'DaemonSet' ? {} : { ownership: ownershipOf(kind) }),
      // As many reconcilers per cluster as a one-cluster run has.
      ...(clusters.length > 1
        ? { reconcileConcurrency: 2 * clusters.length }
        : {}),
      host: (newWiring) => {
        containers = new LambdaContainers(
          (clock) => planted(newWiring(clock), o.plant),
          faults
        );
        return containers.host;
      },
    });
    cleanups.push(async () => {
      await stack.stop();
      await containers?.closeAll();
      await stack.table.client
        .send(new DeleteTableCommand({ TableName: stack.table.tableName }))
        .catch(() => undefined);
      // The whole log, for reading a run after the fact: the stack's lines
      // and the checker's history (its watch events, the runner's notes)
      // in one timeline, in seconds since the faults began; one per cluster.
      mkdirSync(bed.logDir, { recursive: true });
      for (const c of clusters) {
        writeFileSync(
          path.join(bed.logDir, `seed-${o.seed}-${c.ns}.log`),
          runTimeline(stack.logger.lines, c.checker, faultsBegan)
        );
      }
    });
    for (const [i, c] of clusters.entries()) {
      if (i === 0) continue;
      await stack.registerCluster(`${stack.cluster}-${i}`, c.kubeconfigPath, {
        ownership: ownershipOf(c.kind),
        bridgeMode: 'watch',
      });
    }

    // Faults and workload, for faultMs.
    for (const c of clusters) {
      await c.workload.createForeignPods();
      for (let i = 0; i < o.daemonSets; i++)
        await c.workload.createDaemonSet(i);
    }
    for (const s of specs) s.faults.begin();
    faultsBegan = faults.startedAt;
    note(
      `fault plan: ${describePlan(plan).join('; ')}; workload: ${actions.map((a) => `${(a.atMs / 1000).toFixed(1)} s ${a.kind}`).join(', ')}`
    );
    for (const s of specs.slice(1))
      note(
        `${s.label} (${s.kind}) fault plan: ${describePlan(s.plan).join('; ')}`
      );
    const cuts = clusters.flatMap((c) =>
      c.cutsAtMs.map((ms) => setTimeout(() => c.api.cutAll(), ms))
    );
    cleanups.push(async () => cuts.forEach(clearTimeout));
    note(`faults begin: ${plan.windows.length} windows`);
    // A cluster's controller is held back by its own API server's faults
    // and by the shared parts' (table, queues), never by another cluster's.
    const blocked = setInterval(() => {
      for (const [i, c] of clusters.entries()) {
        c.checker.setControllerBlocked(
          i === 0
            ? faults.holdsControllerBack()
            : faults.holdsEveryClusterBack() ||
                (specs[i]?.faults.holdsControllerBack() ?? false)
        );
      }
    }, 100);
    for (const action of actions) {
      const wait = faults.startedAt + action.atMs - Date.now();
      if (wait > 0) await abortableSleep(wait);
      note(`action ${action.kind}`);
      await Promise.all(
        clusters.map((c) =>
          c.workload
            .perform(action.kind)
            .catch((e: unknown) =>
              c.checker.note(`action ${action.kind} failed: ${String(e)}`)
            )
        )
      );
    }
    const rest = faults.startedAt + o.faultMs - Date.now();
    if (rest > 0) await abortableSleep(rest);
    for (const s of specs) s.faults.stop();
    clearInterval(blocked);
    for (const c of clusters) c.checker.setControllerBlocked(false);
    note('faults and workload stop');
    const logMark = stack.logger.lines.length;
    // The own kind's held rollouts end, so that converged means the whole
    // rollout done (each control is judged by its own e2e test).
    await Promise.all(
      clusters.map((c) =>
        c.workload
          .promote()
          .catch((e: unknown) => c.checker.note(`promote failed: ${String(e)}`))
      )
    );

    // Liveness: everything converges with nothing more happening, and
    // stays so past every late delivery (a redelivery after the visibility
    // timeout, a delayed batch, a requeue timer); then no message is left
    // anywhere, dead-letter queues included (the accounting check).
    const converged = await convergedEverywhere(clusters, o.convergeTimeoutMs);
    // Without convergence, what the queues hold tells where a wake-up went.
    const settled = converged.ok
      ? await settledAfterConvergence(clusters, stack)
      : (await leftOnQueues(stack, 'when convergence timed out')).map((v) => ({
          c: first,
          v,
        }));
    const found = [
      ...clusters.flatMap((c) => c.checker.violations().map((v) => ({ c, v }))),
      ...converged.violations,
      ...settled,
    ];
    for (const c of clusters) {
      for (const [k, n] of Object.entries(c.api.counts.faults))
        faults.applied(k, n);
    }
    const firstFound = found[0];
    return {
      seed: o.seed,
      options: o,
      kind,
      otherClusters,
      plan,
      actions,
      violations: found.map(({ c, v }) => onCluster(c, v)),
      injected: faults.injected,
      convergeMs: converged.ok ? converged.ms : undefined,
      wallMs: Date.now() - started,
      cost: {
        apiRequests: clusters.reduce((n, c) => n + c.api.counts.requests, 0),
        dynamodbCalls: dynamodb.calls.length,
        dynamodbCallKinds: dynamodbCallKinds(dynamodb.calls),
        sqsCalls: sqs.calls.length,
        reconcileInvocations: stack.reconcilePoller.invocations.length,
      },
      containers: containers?.counts ?? { started: 0, killed: 0, timedOut: 0 },
      history: firstFound
        ? firstFound.c.checker.minimalHistory(firstFound.v)
        : [],
      logAfterFaults: stack.logger.lines
        .slice(logMark, logMark + 60)
        .map(
          (l) => `${l.level} ${l.message} ${JSON.stringify(l.fields ?? {})}`
        ),
    };
  } finally {
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch(() => undefined);
    }
  }
};
