/**
 * One measured window of the serverless stack (a create or a rollout):
 * from the change until the stack is quiet, what it spent — invocations,
 * syncs, pod writes, API requests and bytes read by kind, AWS calls — and
 * what that would cost on AWS (usage-cost.ts).
 */
import { readFileSync } from 'node:fs';
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import { repositoryFile } from '#lib/local-cluster/repository-file.js';
import { livePodsOf } from '../integration/serverless/cluster-state.js';
import { summariseAwsCalls } from './aws-call-summary.js';
import type { BenchTestbed } from './bench-testbed.js';
import { countingWrites } from './controller-writes.js';
import type { Proxies, StackWindow } from './converge.js';
import { kib, say } from './markdown.js';
import type { RolloutResult } from './rollout.js';
import type {
  StackCounters,
  StackLogLine,
  StackProcess,
} from './stack-process.js';
import {
  billedMs,
  ESM_REQUESTS_PER_INVOCATION,
  functionMemoryMb,
  requestsTo,
  requestUnitsOfAll,
} from './usage-cost.js';

/** The stack counts as done when nothing happened for this long. */
export const QUIET_MS = 5_000;
const QUIET_TIMEOUT_MS = 120_000;
/** How often quiet is checked. */
const POLL_MS = 250;

/** What has to stand still for the stack to count as quiet. */
const activity = (c: StackCounters) =>
  JSON.stringify([
    c.reconcileInvocations,
    c.reconcileRecords,
    c.requeueInvocations,
  ]);

/** Waits until both queues are empty and no invocation ran for QUIET_MS. */
const waitQuiet = async (stack: StackProcess): Promise<boolean> => {
  const started = Date.now();
  let last = activity(await stack.counters());
  let lastChange = Date.now();
  while (Date.now() - started < QUIET_TIMEOUT_MS) {
    await abortableSleep(POLL_MS);
    const now = activity(await stack.counters());
    if (now !== last) {
      last = now;
      lastChange = Date.now();
      continue;
    }
    if (Date.now() - lastChange < QUIET_MS) continue;
    if (await stack.queuesEmpty()) return true;
  }
  return false;
};

/** The reconcile function's memory as deployed, for its GB-seconds. */
export const reconcileMemoryMb = () =>
  functionMemoryMb(
    readFileSync(repositoryFile(import.meta.url, 'serverless.yml'), 'utf8'),
    'reconcile'
  );

/** What a serverless window is measured with. */
export interface StackProbe {
  testbed: BenchTestbed;
  proxies: Proxies;
  stack: StackProcess;
  memoryMb: number;
}

/**
 * Runs `act` (a create or a rollout, timed by itself), waits until the
 * stack is quiet, and returns `act`'s timing with the controller's writes
 * and what the stack spent from the start of `act` until quiet.
 */
export const measureWindow = async (
  p: StackProbe,
  ns: string,
  act: () => Promise<{ ms: number; series: [number, number][] }>
): Promise<RolloutResult & StackWindow> => {
  const { stack, proxies } = p;
  const before = await stack.counters();
  const marks = { dynamo: proxies.dynamodb.mark(), sqs: proxies.sqs.mark() };
  const started = Date.now();
  let quiet = false;
  const timed = await countingWrites(p.testbed.admin, act, async () => {
    quiet = await waitQuiet(stack);
  });
  const windowMs = Date.now() - started;
  const podBytes = (await livePodsOf(p.testbed.admin, ns, 'agent')).reduce(
    (sum, pod) => sum + Buffer.byteLength(JSON.stringify(pod)),
    0
  );
  const after = await stack.counters();
  const spent = (k: keyof StackCounters & CountedKey) => after[k] - before[k];
  const sqs = proxies.sqs.since(marks.sqs);
  const queues = {
    workUrl: stack.queues.work,
    delayUrl: stack.queues.delay,
  };
  const units = requestUnitsOfAll(proxies.dynamodb.since(marks.dynamo));
  const reconcileInvocations = spent('reconcileInvocations');
  const requeueInvocations = spent('requeueInvocations');
  return {
    ...timed,
    windowMs,
    quiet,
    reconcileInvocations,
    reconcileRecords: spent('reconcileRecords'),
    requeueInvocations,
    syncs: spent('syncs'),
    syncErrors: spent('syncErrors'),
    creates: spent('creates'),
    deletes: spent('deletes'),
    kubeRequests: spent('kubeRequests'),
    kubeBytesRead: spent('kubeBytesRead'),
    kubeByKind: trafficSince(before.kubeByKind, after.kubeByKind),
    podBytes,
    peakRssBytes: after.peakRssBytes,
    containers: {
      started: after.containers.started - before.containers.started,
      timedOut: after.containers.timedOut - before.containers.timedOut,
    },
    aws: summariseAwsCalls(sqs, proxies.dynamodb.since(marks.dynamo), queues),
    usage: {
      reconcileInvocations,
      reconcileBilledMs: billedMs(
        after.reconcileMs.slice(before.reconcileMs.length)
      ),
      reconcileMemoryMb: p.memoryMb,
      requeueInvocations,
      dynamoReadUnits: units.read,
      dynamoWriteUnits: units.write,
      sqsFifoRequests:
        requestsTo(sqs, queues.workUrl) +
        ESM_REQUESTS_PER_INVOCATION * reconcileInvocations,
      sqsStandardRequests:
        requestsTo(sqs, queues.delayUrl) +
        ESM_REQUESTS_PER_INVOCATION * requeueInvocations,
    },
  };
};

/** What each kind of request added from `before` to `after`. */
const trafficSince = (
  before: StackCounters['kubeByKind'],
  after: StackCounters['kubeByKind']
): StackCounters['kubeByKind'] =>
  Object.fromEntries(
    Object.entries(after)
      .map(([kind, a]) => {
        const b = before[kind] ?? { requests: 0, bytesRead: 0 };
        return [
          kind,
          {
            requests: a.requests - b.requests,
            bytesRead: a.bytesRead - b.bytesRead,
          },
        ] as const;
      })
      .filter(([, t]) => t.requests > 0 || t.bytesRead > 0)
  );

/** Says what a window read, by kind of request, most first. */
export const sayReadsByKind = (phase: string, w: StackWindow) => {
  const kinds = Object.entries(w.kubeByKind ?? {})
    .sort(([, a], [, b]) => b.bytesRead - a.bytesRead)
    .map(([kind, t]) => `${kind} ${kib(t.bytesRead)} KiB (${t.requests})`);
  say(`serverless: ${phase} read by kind: ${kinds.join(', ')}`);
};

/** The counters a window subtracts. */
type CountedKey =
  | 'reconcileInvocations'
  | 'reconcileRecords'
  | 'requeueInvocations'
  | 'syncs'
  | 'syncErrors'
  | 'creates'
  | 'deletes'
  | 'kubeRequests'
  | 'kubeBytesRead';

/** Logs why syncs failed since line `from` (each is retried with backoff). */
export const sayFailedSyncs = (lines: readonly StackLogLine[]) => {
  for (const line of lines.filter(
    (l) => l.message === 'sync failed; retrying with backoff'
  )) {
    say(`serverless: sync failed: ${JSON.stringify(line.fields)}`);
  }
};
