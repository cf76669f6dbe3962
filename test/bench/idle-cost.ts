/**
 * The idle bench: what a converged fleet costs while nothing changes,
 * counted on the emulated stack at the deployed timings (dispatcher every
 * 60 s, 14-minute watch turns, 60 s leases) over a real idle window, and
 * priced. Clusters are real (an API server each, on one shared etcd), half
 * in watch mode and half in economy mode. Counted per cluster: bridge
 * invocations and their GB-seconds (a packed watch turn's time shared among
 * its clusters), DynamoDB requests and the items they touch (by the cluster
 * named in the key), SQS requests, and log bytes; the dispatcher's own cost
 * is fixed (per deployment).
 */
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import { createNodes } from '#lib/local-cluster/simulated-nodes.js';
import type { BridgeTurn } from '#lib/ports/index.js';
import type { ControlPlane } from '../../lib/local-cluster/control-plane.js';
import { isConverged } from '../integration/serverless/cluster-state.js';
import {
  eventually,
  ServerlessStack,
} from '../integration/serverless/stack.js';
import {
  createAgentDaemonSet,
  createNamespace,
} from '../testbed/kube-fixtures.js';
import { startBenchTestbed, startTenant } from './bench-testbed.js';
import { CountingProxy, type ProxiedCall } from './counting-proxy.js';
import { fixed, markdownTable, say } from './markdown.js';
import { PRICES } from './usage-cost.js';

const MEMORY_GB = { watch: 0.5, economy: 0.25, dispatch: 0.25 } as const;
const HOURS_PER_MONTH = 730;
const NS = 'idle';
const SELECTOR = { idle: 'yes' };

/** The idle window's shape. */
export interface IdleBenchOptions {
  /** Clusters per mode. */
  perMode: number;
  minutes: number;
}

interface Usage {
  invocations: number;
  gbSeconds: number;
  writeUnits: number;
  readUnits: number;
  sqsRequests: number;
}

const empty = (): Usage => ({
  invocations: 0,
  gbSeconds: 0,
  writeUnits: 0,
  readUnits: 0,
  sqsRequests: 0,
});

/** Returns the cluster a DynamoDB request's first key names, if any. */
const clusterOf = (
  input: unknown,
  ids: readonly string[]
): string | undefined => {
  const text = JSON.stringify(input ?? {});
  return ids.find((id) => text.includes(`#${id}`));
};

/** Items a DynamoDB call reads or writes (units, for items under 1 KB). */
const itemsOf = (call: ProxiedCall): number => {
  const input = call.input as {
    RequestItems?: Record<string, { Keys?: unknown[] }>;
  };
  if (call.action === 'BatchGetItem') {
    return Object.values(input.RequestItems ?? {}).reduce(
      (n, r) => n + (r.Keys?.length ?? 0),
      0
    );
  }
  return 1;
};

const WRITES = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'TransactWriteItems',
  'BatchWriteItem',
]);

/** Runs the idle bench; returns its Markdown section. */
export const runIdleBench = async (o: IdleBenchOptions): Promise<string> => {
  const bed = await startBenchTestbed({ aws: true });
  const tenants: ControlPlane[] = [];
  let stack: ServerlessStack | undefined;
  const emulators = bed.emulators;
  if (!emulators) throw new Error('idle bench: no AWS emulators');
  const proxies = {
    dynamodb: await CountingProxy.start(emulators.dynamodbEndpoint),
    sqs: await CountingProxy.start(emulators.sqsEndpoint),
  };
  try {
    const modes: ('watch' | 'economy')[] = [];
    for (let i = 0; i < o.perMode; i++) modes.push('watch', 'economy');
    stack = await ServerlessStack.start({
      kubeconfigPath: bed.controlPlane.kubeconfigPath,
      bridgeMode: modes[0],
      endpoints: {
        dynamodb: emulators.dynamodbEndpoint,
        sqs: emulators.sqsEndpoint,
      },
      productEndpoints: {
        dynamodb: proxies.dynamodb.endpoint,
        sqs: proxies.sqs.endpoint,
      },
      // The deployed timings (serverless.yml, lib/config.ts).
      dispatchTickMs: 60_000,
      bridgeWatchSeconds: 840,
      leaseTtlMs: 60_000,
    });
    const s = stack;
    const clusters: { id: string; mode: 'watch' | 'economy' }[] = [];
    for (const [i, mode] of modes.entries()) {
      const cp =
        i === 0 ? bed.controlPlane : await startTenant(bed, `idle-${i}`);
      if (i > 0) tenants.push(cp);
      const id = i === 0 ? s.cluster : `idle-${i}`;
      if (i > 0) {
        await s.registerCluster(id, cp.kubeconfigPath, {
          ownership: 'apps/v1',
          bridgeMode: mode,
        });
      }
      const http = cp.http();
      await createNamespace(http, NS);
      const nodes = await createNodes(http, 3, {
        prefix: `i${i}-`,
        labels: SELECTOR,
      });
      await createAgentDaemonSet(http, NS, SELECTOR);
      await eventually(
        `${id} converged`,
        () => isConverged(http, NS, nodes),
        5 * 60_000,
        500
      );
      http.close();
      clusters.push({ id, mode });
    }
    say(`idle: ${clusters.length} clusters converged; settling 3 minutes`);
    await abortableSleep(3 * 60_000);
    const ids = clusters.map((c) => c.id);
    const marks = {
      dynamodb: proxies.dynamodb.mark(),
      sqs: proxies.sqs.mark(),
      invocations: s.bridgeInvocations.length,
      ticks: s.dispatchTicks.length,
      logs: s.logger.lines.length,
      reconciles: s.reconcilePoller.invocations.length,
    };
    const t0 = Date.now();
    say(`idle: counting ${o.minutes} idle minutes`);
    await abortableSleep(o.minutes * 60_000);
    const hours = (Date.now() - t0) / 3_600_000;
    const usage = new Map<string, Usage>(ids.map((id) => [id, empty()]));
    const fixedUsage = empty();
    // Invocations finished in the window (a watch turn still running is
    // counted when it ends: the window holds whole turns on average).
    for (const inv of s.bridgeInvocations.slice(marks.invocations)) {
      const share = 1 / inv.turn.clusters.length;
      for (const part of inv.turn.clusters) {
        const u = usage.get(part.cluster);
        if (!u) continue;
        u.invocations += share;
        u.gbSeconds +=
          (share *
            inv.durationMs *
            MEMORY_GB[inv.turn.mode as BridgeTurn['mode']]) /
          1_000;
      }
    }
    const ticks = s.dispatchTicks.slice(marks.ticks);
    fixedUsage.invocations += ticks.length;
    fixedUsage.gbSeconds +=
      (ticks.reduce((a, b) => a + b, 0) * MEMORY_GB.dispatch) / 1_000;
    for (const call of proxies.dynamodb.since(marks.dynamodb)) {
      const u = usage.get(clusterOf(call.input, ids) ?? '') ?? fixedUsage;
      const items = itemsOf(call);
      if (WRITES.has(call.action)) u.writeUnits += items;
      else u.readUnits += items;
    }
    for (const call of proxies.sqs.since(marks.sqs)) {
      const u = usage.get(clusterOf(call.input, ids) ?? '') ?? fixedUsage;
      u.sqsRequests++;
    }
    const logBytes = JSON.stringify(s.logger.lines.slice(marks.logs)).length;
    const reconciles = s.reconcilePoller.invocations.length - marks.reconciles;
    const monthly = (u: Usage) => {
      const f = HOURS_PER_MONTH / hours;
      return {
        lambda:
          f *
          (u.invocations * PRICES.lambdaRequest +
            u.gbSeconds * PRICES.lambdaGbSecond),
        dynamo:
          f *
          (u.writeUnits * PRICES.dynamoWriteUnit +
            u.readUnits * PRICES.dynamoReadUnit),
        sqs: f * u.sqsRequests * PRICES.sqsRequest,
      };
    };
    const rows = clusters.map((c) => {
      const u = usage.get(c.id) ?? empty();
      const m = monthly(u);
      return [
        c.id,
        c.mode,
        fixed(u.invocations / hours, 1),
        fixed(u.gbSeconds / hours, 1),
        fixed((u.writeUnits + u.readUnits) / hours, 0),
        fixed(u.sqsRequests / hours, 0),
        `$${fixed(m.lambda, 3)}`,
        `$${fixed(m.dynamo, 3)}`,
        `$${fixed(m.lambda + m.dynamo + m.sqs, 3)}`,
      ];
    });
    const f = monthly(fixedUsage);
    const logsMonthly =
      ((logBytes / 2 ** 30) * PRICES.logGb * HOURS_PER_MONTH) / hours;
    return [
      `### Idle cost: ${clusters.length} converged clusters, ${fixed(hours * 60, 0)} idle minutes at the deployed timings`,
      '',
      `Reconcile invocations during the window: ${reconciles}. Prices assumed (us-east-1): Lambda arm64 $${PRICES.lambdaGbSecond}/GB-s and $0.20/M requests (watch function 512 MB, economy 256 MB, dispatcher 256 MB), DynamoDB on demand $0.625/M write and $0.125/M read units (one unit per item touched; items are under 1 KB), SQS $0.40/M requests, logs $0.50/GB ingested. Per hour counted, per month priced (730 h).`,
      '',
      markdownTable(
        [
          'cluster',
          'mode',
          'invocations/h',
          'GB-s/h',
          'DynamoDB items/h',
          'SQS req/h',
          'Lambda $/month',
          'DynamoDB $/month',
          'total $/month',
        ],
        rows
      ),
      '',
      `Fixed per deployment: dispatcher ${fixed(fixedUsage.invocations / hours, 0)} invocations/h, ${fixed((fixedUsage.readUnits + fixedUsage.writeUnits) / hours, 0)} DynamoDB items/h (registry Query, lease BatchGet): Lambda $${fixed(f.lambda, 3)}, DynamoDB $${fixed(f.dynamo, 3)} a month; all logs $${fixed(logsMonthly, 3)} a month; fleet-wide custom metrics (about 20) $${fixed(20 * PRICES.metricMonth, 2)} a month.`,
    ].join('\n');
  } finally {
    await stack?.stop();
    await proxies.dynamodb.close();
    await proxies.sqs.close();
    for (const t of tenants.reverse()) await t.stop();
    await bed.stop();
  }
};
