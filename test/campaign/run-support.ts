/**
 * A run's plumbing: the kubeconfig that reaches the cluster through the
 * fault proxy, and the checks after convergence (it holds, and no message
 * is left anywhere).
 */
import { writeFileSync } from 'node:fs';
import { KubeConfig } from '@kubernetes/client-node';
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import { queueCounts } from '../helpers/sqs-queues.js';
import type { ServerlessStack } from '../integration/serverless/stack.js';
import type {
  InvariantChecker,
  Violation,
} from './checker/invariant-checker.js';
import type { ApiFaultProxy } from './faults/api-fault-proxy.js';
import type { RunCluster } from './run-cluster.js';

/** How long convergence must hold: past a redelivery (6 s visibility), a 3-s delayed batch and a 5-s invocation. */
const SETTLE_MS = 15_000;

/** A violation and the cluster of the run it was found on. */
export interface FoundOn {
  c: RunCluster;
  v: Violation;
}

/**
 * Awaits every cluster's convergence (each up to `timeoutMs`, at once);
 * `ms` is the slowest's.
 */
export const convergedEverywhere = async (
  clusters: readonly RunCluster[],
  timeoutMs: number
): Promise<{ ok: boolean; ms: number; violations: FoundOn[] }> => {
  const each = await Promise.all(
    clusters.map(async (c) => ({
      c,
      r: await c.checker.awaitConvergence(timeoutMs, c.workload.generations),
    }))
  );
  const violations = each.flatMap(({ c, r }) =>
    r.ok ? [] : [{ c, v: r.violation }]
  );
  return {
    ok: violations.length === 0,
    ms: Math.max(0, ...each.map(({ r }) => (r.ok ? r.ms : 0))),
    violations,
  };
};

/**
 * Waits SETTLE_MS after convergence; returns violations if it no longer
 * holds on a cluster, or if any message is left on the work, delay or
 * dead-letter queues (found on the run's first cluster).
 */
export const settledAfterConvergence = async (
  clusters: readonly RunCluster[],
  stack: ServerlessStack
): Promise<FoundOn[]> => {
  await abortableSleep(SETTLE_MS);
  const out: FoundOn[] = [];
  for (const c of clusters) {
    const still = await c.checker.awaitConvergence(1_000);
    if (!still.ok) {
      out.push({
        c,
        v: {
          ...still.violation,
          detail: `converged, then no longer: ${still.violation.detail}`,
        },
      });
    }
  }
  const [first] = clusters;
  const left = await leftOnQueues(stack, `${SETTLE_MS} ms after convergence`);
  return first ? [...out, ...left.map((v) => ({ c: first, v }))] : out;
};

/**
 * Returns a violation per queue that still holds messages (work, delay and
 * both dead-letter queues): after convergence none may be left.
 */
export const leftOnQueues = async (
  stack: ServerlessStack,
  when: string
): Promise<Violation[]> => {
  const { client, work, delay, workDlq, delayDlq } = stack.queues;
  const out: Violation[] = [];
  for (const [name, queue] of Object.entries({
    work,
    delay,
    workDlq,
    delayDlq,
  })) {
    const counts = await queueCounts(client, queue.url);
    const left = counts.visible + counts.inFlight + counts.delayed;
    if (left > 0) {
      out.push({
        invariant: 'converges-after-faults',
        atMs: Date.now(),
        detail: `${left} message(s) left on the ${name} queue ${when} (${JSON.stringify(counts)})`,
      });
    }
  }
  return out;
};

/** Writes a copy of `kubeconfigPath` that reaches the cluster through the proxy. */
export const kubeconfigThrough = (
  kubeconfigPath: string,
  proxy: ApiFaultProxy,
  file: string
): string => {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const out = proxy.kubeConfigFor(kc.getCurrentUser()?.token ?? '');
  writeFileSync(file, out.exportConfig(), { mode: 0o600 });
  return file;
};

/** Returns the admin kubeconfig's server and CA (PEM). */
export const adminTarget = (kubeconfigPath: string) => {
  const kc = new KubeConfig();
  kc.loadFromFile(kubeconfigPath);
  const cluster = kc.getCurrentCluster();
  return {
    server: cluster?.server ?? '',
    ca: Buffer.from(cluster?.caData ?? '', 'base64').toString('utf8'),
  };
};

/**
 * Returns a run's log: the stack's lines and the checker's history in one
 * timeline, each line stamped with seconds since `zeroMs` (the faults'
 * start), so a wake-up that went missing shows between the events around it.
 */
export const runTimeline = (
  lines: readonly {
    level: string;
    message: string;
    fields?: object;
    atMs: number;
  }[],
  checker: InvariantChecker | undefined,
  zeroMs: number
): string => {
  const entries = [
    ...lines.map((l) => ({
      atMs: l.atMs,
      text: `${l.level} ${l.message} ${JSON.stringify(l.fields ?? {})}`,
    })),
    ...(checker?.fullHistory() ?? []).map((h) => ({
      atMs: h.atMs,
      text: `[checker ${h.kind}] ${h.text}`,
    })),
  ];
  // Stable: lines of one instant keep their order.
  entries.sort((a, b) => a.atMs - b.atMs);
  return entries
    .map((e) => `${((e.atMs - zeroMs) / 1000).toFixed(3)} ${e.text}`)
    .join('\n');
};
