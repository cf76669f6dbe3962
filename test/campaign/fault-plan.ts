/**
 * A run's fault schedule, drawn from its seed: windows of time during which
 * one kind of fault hits a share of the calls it applies to. A plan is
 * plain data, so a violation prints it and shrinking drops windows from it.
 */
import type { SeededRandom } from './seeded-random.js';

/** Every kind of fault the campaign injects. */
export const FAULT_KINDS = [
  'kill-reconcile',
  'kill-requeue',
  'kill-watch-bridge',
  'sqs-duplicate',
  'sqs-redelivery',
  'sqs-delay',
  'dynamodb-throttle',
  'dynamodb-5xx',
  'dynamodb-lost-response',
  'sqs-send-5xx',
  'api-429',
  'api-5xx',
  'api-latency',
  'api-reset',
  'watch-cut',
  'watch-410',
  'cluster-unreachable',
  'clock-skew',
] as const;

export type FaultKind = (typeof FAULT_KINDS)[number];

/**
 * The kinds that hit one cluster's API server alone (the fault proxy in
 * front of it); every other kind hits the deployment's shared parts
 * (containers, queues, table) and so every cluster at once.
 */
export const CLUSTER_FAULT_KINDS: readonly FaultKind[] = FAULT_KINDS.filter(
  (k) => /^(api|watch|cluster)-/.test(k)
);

/** One window: from `fromMs` to `toMs` after the run's start, `rate` of the calls. */
export interface FaultWindow {
  kind: FaultKind;
  fromMs: number;
  toMs: number;
  rate: number;
}

/** The faults of one run. */
export interface FaultPlan {
  windows: FaultWindow[];
}

/**
 * How hard each kind hits inside its window (the share of calls); DynamoDB
 * and SQS windows may fail every call, past the SDK's own retries.
 */
const RATES: Record<FaultKind, [number, number]> = {
  'kill-reconcile': [0.2, 0.6],
  'kill-requeue': [0.2, 0.6],
  'kill-watch-bridge': [0.3, 1],
  'sqs-duplicate': [0.2, 0.5],
  'sqs-redelivery': [0.2, 0.5],
  'sqs-delay': [0.2, 0.6],
  'dynamodb-throttle': [0.05, 1],
  'dynamodb-5xx': [0.05, 1],
  'dynamodb-lost-response': [0.05, 0.3],
  'sqs-send-5xx': [0.05, 1],
  'api-429': [0.1, 0.5],
  'api-5xx': [0.05, 0.3],
  'api-latency': [0.2, 0.8],
  'api-reset': [0.05, 0.2],
  'watch-cut': [0.3, 1],
  'watch-410': [0.1, 0.4],
  'cluster-unreachable': [1, 1],
  'clock-skew': [0.3, 1],
};

/**
 * Draws a plan: `windows` windows of `kinds` inside the first `durationMs`
 * of the run.
 */
export const drawFaultPlan = (
  random: SeededRandom,
  durationMs: number,
  windows: number,
  kinds: readonly FaultKind[] = FAULT_KINDS
): FaultPlan => ({
  windows: Array.from({ length: windows }, () => {
    const kind = random.pick(kinds);
    const length = random.int(1_500, Math.min(6_000, durationMs));
    const fromMs = random.int(0, Math.max(0, durationMs - length));
    const [low, high] = RATES[kind];
    const rate = Math.round((low + random.next() * (high - low)) * 100) / 100;
    return { kind, fromMs, toMs: fromMs + length, rate };
  }).sort((a, b) => a.fromMs - b.fromMs),
});

/** Returns the plan in one line per window, for a report. */
export const describePlan = (plan: FaultPlan): string[] =>
  plan.windows.map(
    (w) =>
      `${(w.fromMs / 1000).toFixed(1)}–${(w.toMs / 1000).toFixed(1)} s ${w.kind} ${Math.round(w.rate * 100)} %`
  );
