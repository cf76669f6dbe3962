/**
 * One campaign run: a namespace with its own nodes, the product's serverless
 * stack reaching the cluster under the reconciler's least-privilege role
 * through the fault proxy, a random workload and random faults for a while,
 * then no faults and no workload until every DaemonSet has converged — with
 * the invariant checker watching from the start to the end.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { DeleteTableCommand } from '@aws-sdk/client-dynamodb';
import { sleep } from '#lib/bridge/resource-watch.js';
import { cleanUpRun } from '../bench/bench-testbed.js';
import { CountingProxy } from '../bench/counting-proxy.js';
import { createReconcilerIdentity } from '../integration/reconciler-identity.js';
import { ServerlessStack } from '../integration/serverless/stack.js';
import { ensureAdvancedDaemonSetCrd } from '../testbed/advanced-daemonset-crd.js';
import { createNamespace } from '../testbed/kube-fixtures.js';
import { ActiveFaults } from './active-faults.js';
import { InvariantChecker } from './checker/invariant-checker.js';
import { describePlan } from './fault-plan.js';
import { ApiFaultProxy } from './faults/api-fault-proxy.js';
import { CampaignContainers } from './faults/lambda-containers.js';
import {
  adminTarget,
  kubeconfigThrough,
  leftOnQueues,
  runTimeline,
  settledAfterConvergence,
} from './run-support.js';
import {
  type CampaignBed,
  planOf,
  planted,
  type RunOptions,
  type RunResult,
} from './run-types.js';
import { SeededRandom } from './seeded-random.js';
import { Workload } from './workload.js';

export type {
  CampaignBed,
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
  const { plan, actions, kind } = planOf(o);
  try {
    return await runPlanned(bed, o, { plan, actions, kind }, started);
  } catch (e) {
    // The harness failed (set-up, the cluster's own API): the run proves nothing.
    return {
      seed: o.seed,
      options: o,
      kind,
      plan,
      actions,
      violations: [],
      error: e instanceof Error ? (e.stack ?? e.message) : String(e),
      injected: {},
      convergeMs: undefined,
      wallMs: Date.now() - started,
      cost: {
        apiRequests: 0,
        dynamodbCalls: 0,
        sqsCalls: 0,
        reconcileInvocations: 0,
      },
      containers: { started: 0, killed: 0, timedOut: 0 },
      history: [],
      logAfterFaults: [],
    };
  }
};

const runPlanned = async (
  bed: CampaignBed,
  o: RunOptions,
  { plan, actions, kind }: ReturnType<typeof planOf>,
  started: number
): Promise<RunResult> => {
  const random = new SeededRandom(o.seed);
  const ns = `camp-${o.seed.toString(36)}-${Date.now().toString(36).slice(-4)}`;
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    const checkerLater: { checker?: InvariantChecker } = {};
    let faultsBegan = started;
    const observer = {
      note: (t: string) => checkerLater.checker?.note(t),
      markChaos: (p: string) => checkerLater.checker?.markChaos(p),
      markForeign: (p: string) => checkerLater.checker?.markForeign(p),
    };
    const workload = new Workload(
      bed.admin,
      ns,
      bed.adminKubeconfigPath,
      bed.kubectl,
      random.fork('targets'),
      observer,
      kind
    );
    await createNamespace(bed.admin, ns);
    // The namespace goes (and is gone) before the nodes, so KWOK still
    // finishes the deletion of its pods.
    cleanups.push(() => cleanUpRun(bed.admin, ns, workload.nodes));
    const ownKind = kind === 'AdvancedDaemonSet';
    if (ownKind) await ensureAdvancedDaemonSetCrd(bed.admin);
    const identity = await createReconcilerIdentity(
      bed.admin,
      ns,
      ownKind ? 'apps.dsr.dev/v1beta1' : 'apps/v1',
      bed.adminKubeconfigPath
    );
    cleanups.push(() => identity.remove());
    const target = adminTarget(bed.adminKubeconfigPath);
    const api = await ApiFaultProxy.start(target.server, target.ca);
    cleanups.push(() => api.close());
    const dynamodb = await CountingProxy.start(bed.dynamodbEndpoint);
    const sqs = await CountingProxy.start(bed.sqsEndpoint);
    cleanups.push(
      () => dynamodb.close(),
      () => sqs.close()
    );
    await workload.addNodes(o.nodes);
    const checker = await InvariantChecker.start({
      kubeconfigPath: bed.adminKubeconfigPath,
      namespace: ns,
      nodeLabel: workload.nodeLabel,
      daemonSetKind: kind,
      // About one sync: a redelivery's visibility timeout (6 s), an
      // invocation (5 s) and slack; paused while a fault holds the
      // controller back.
      ineligibleGraceMs: 15_000,
    });
    checkerLater.checker = checker;
    cleanups.push(() => checker.stop());
    const faults = new ActiveFaults(plan, random.fork('faults'));
    api.decide = faults.api;
    dynamodb.interfere = faults.dynamodb;
    sqs.interfere = faults.sqs;
    let containers: CampaignContainers | undefined;
    // Watches open before a window opens are cut when it opens, too.
    const cutting = plan.windows
      .filter(
        (w) =>
          w.kind === 'watch-cut' ||
          w.kind === 'watch-410' ||
          w.kind === 'cluster-unreachable'
      )
      .map((w) => w.fromMs);
    const stack = await ServerlessStack.start({
      kubeconfigPath: kubeconfigThrough(
        identity.kubeconfigPath,
        api,
        path.join(bed.workDir, `${ns}.kubeconfig`)
      ),
      endpoints: { dynamodb: bed.dynamodbEndpoint, sqs: bed.sqsEndpoint },
      productEndpoints: { dynamodb: dynamodb.endpoint, sqs: sqs.endpoint },
      // Short bridge turns: more hand-overs and bridge starts for the
      // faults to hit.
      bridgeWatchSeconds: 5,
      ...(ownKind ? { ownership: 'apps.dsr.dev/v1beta1' as const } : {}),
      host: (newWiring) => {
        containers = new CampaignContainers(
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
      // in one timeline, in seconds since the faults began.
      mkdirSync(bed.logDir, { recursive: true });
      writeFileSync(
        path.join(bed.logDir, `seed-${o.seed}-${ns}.log`),
        runTimeline(stack.logger.lines, checkerLater.checker, faultsBegan)
      );
    });

    // Faults and workload, for faultMs.
    await workload.createForeignPods();
    for (let i = 0; i < o.daemonSets; i++) await workload.createDaemonSet(i);
    faults.begin();
    faultsBegan = faults.startedAt;
    checker.note(
      `fault plan: ${describePlan(plan).join('; ')}; workload: ${actions.map((a) => `${(a.atMs / 1000).toFixed(1)} s ${a.kind}`).join(', ')}`
    );
    const cuts = cutting.map((ms) => setTimeout(() => api.cutAll(), ms));
    cleanups.push(async () => cuts.forEach(clearTimeout));
    checker.note(`faults begin: ${plan.windows.length} windows`);
    const blocked = setInterval(
      () => checker.setControllerBlocked(faults.holdsControllerBack()),
      100
    );
    for (const action of actions) {
      const wait = faults.startedAt + action.atMs - Date.now();
      if (wait > 0) await sleep(wait);
      checker.note(`action ${action.kind}`);
      await workload
        .perform(action.kind)
        .catch((e: unknown) =>
          checker.note(`action ${action.kind} failed: ${String(e)}`)
        );
    }
    const rest = faults.startedAt + o.faultMs - Date.now();
    if (rest > 0) await sleep(rest);
    faults.stop();
    clearInterval(blocked);
    checker.setControllerBlocked(false);
    checker.note('faults and workload stop');
    const logMark = stack.logger.lines.length;
    // The own kind's held rollouts end, so that converged means the whole
    // rollout done (each control is judged by its own e2e test).
    await workload
      .promote()
      .catch((e: unknown) => checker.note(`promote failed: ${String(e)}`));

    // Liveness: everything converges with nothing more happening, and
    // stays so past every late delivery (a redelivery after the visibility
    // timeout, a delayed batch, a requeue timer); then no message is left
    // anywhere, dead-letter queues included (the accounting check).
    const converged = await checker.awaitConvergence(
      o.convergeTimeoutMs,
      workload.generations
    );
    // Without convergence, what the queues hold tells where a wake-up went.
    const settled = converged.ok
      ? await settledAfterConvergence(checker, stack)
      : await leftOnQueues(stack, 'when convergence timed out');
    const violations = [
      ...checker.violations(),
      ...(converged.ok ? [] : [converged.violation]),
      ...settled,
    ];
    const first = violations[0];
    for (const [kind, n] of Object.entries(api.counts.faults))
      faults.applied(kind, n);
    return {
      seed: o.seed,
      options: o,
      kind,
      plan,
      actions,
      violations,
      injected: faults.injected,
      convergeMs: converged.ok ? converged.ms : undefined,
      wallMs: Date.now() - started,
      cost: {
        apiRequests: api.counts.requests,
        dynamodbCalls: dynamodb.calls.length,
        sqsCalls: sqs.calls.length,
        reconcileInvocations: stack.reconcilePoller.invocations.length,
      },
      containers: containers?.counts ?? { started: 0, killed: 0, timedOut: 0 },
      history: first ? checker.minimalHistory(first) : [],
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
