/**
 * A fault plan at work during a run: it answers the containers (kill
 * points, delivery, clock skew), the API proxy and the AWS proxies with the
 * windows open at this moment, and counts what it injected. Once stopped it
 * injects nothing, so the run can check that everything converges.
 */
import type { Interference, Interferer } from '../bench/counting-proxy.js';
import type {
  ContainerFaults,
  DeliveryFault,
  KillPoint,
} from '../helpers/lambda-containers.js';
import type { FunctionName } from '../integration/serverless/stack.js';
import {
  CLUSTER_FAULT_KINDS,
  type FaultKind,
  type FaultPlan,
  type FaultWindow,
} from './fault-plan.js';
import type {
  ApiFaultAction,
  ApiFaultDecider,
} from './faults/api-fault-proxy.js';
import type { SeededRandom } from './seeded-random.js';

/** DynamoDB operations that write (a lost answer after their commit). */
const DYNAMO_WRITES = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

const DYNAMO_ERROR = 'com.amazonaws.dynamodb.v20120810#';

/**
 * How long a killed reconcile or requeue invocation holds its keys back: its
 * batch returns only after the queues' visibility timeout (6 s in the
 * campaign's stack). A killed sync is not "one sync after the change"
 * (campaign seed 90212: a delete's retry killed, redelivered 6 s later).
 */
export const KILL_HOLD_MS = 6_000;

/** Kills whose invocation's keys come back only after the visibility timeout. */
const HOLDING_KILLS = new Set<string>(['kill-reconcile', 'kill-requeue']);

/** Faults that can keep every sync of the cluster from acting for their window. */
const HOLDING_KINDS = new Set<FaultKind>([
  'cluster-unreachable',
  'api-429',
  'api-5xx',
  'api-reset',
  'dynamodb-throttle',
  'dynamodb-5xx',
  'sqs-send-5xx',
]);

/** The live faults of one run. */
export class ActiveFaults implements ContainerFaults {
  /** Faults injected, by kind. */
  readonly injected: Partial<Record<FaultKind, number>> = {};
  readonly #plan: FaultPlan;
  /** One stream per window, named by its content: dropping a window while shrinking leaves the others' draws as they were. */
  readonly #streams = new Map<FaultWindow, SeededRandom>();
  #startedAt: number | undefined;
  #stopped = false;
  /** When a kill last held keys back (ms since the epoch). */
  #killedAt = Number.NEGATIVE_INFINITY;

  constructor(plan: FaultPlan, random: SeededRandom) {
    this.#plan = plan;
    for (const w of plan.windows) {
      this.#streams.set(w, random.fork(`${w.kind}@${w.fromMs}-${w.toMs}`));
    }
  }

  /** Starts the plan's clock: its windows count from now. */
  begin(): void {
    this.#startedAt = Date.now();
  }

  /** When the plan's clock started (ms since the epoch). */
  get startedAt(): number {
    return this.#startedAt ?? Date.now();
  }

  /** Stops every fault for the rest of the run. */
  stop(): void {
    this.#stopped = true;
  }

  /**
   * Whether a window that can hold the controller back is open now: the
   * cluster or the API refusing, DynamoDB or SQS failing (possibly every
   * call), or a reconcile or requeue killed within KILL_HOLD_MS; the
   * invariant checker pauses its ineligible-node clock then.
   */
  holdsControllerBack(): boolean {
    return (
      this.#killHolds() || this.#open().some((w) => HOLDING_KINDS.has(w.kind))
    );
  }

  /**
   * Whether a window open now holds back every cluster's controller: the
   * shared table or queues failing, not one cluster's API server.
   */
  holdsEveryClusterBack(): boolean {
    // A killed invocation may have held any cluster's key.
    return (
      this.#killHolds() ||
      this.#open().some(
        (w) =>
          HOLDING_KINDS.has(w.kind) && !CLUSTER_FAULT_KINDS.includes(w.kind)
      )
    );
  }

  #killHolds(): boolean {
    return !this.#stopped && Date.now() < this.#killedAt + KILL_HOLD_MS;
  }

  #open(): FaultWindow[] {
    if (this.#stopped || this.#startedAt === undefined) return [];
    const t = Date.now() - this.#startedAt;
    return this.#plan.windows.filter((w) => w.fromMs <= t && t < w.toMs);
  }

  /** Returns the stream of the open window of `kind` when it hits this call. */
  #hit(kind: FaultKind): SeededRandom | undefined {
    const window = this.#open().find((w) => w.kind === kind);
    const random = window && this.#streams.get(window);
    return random?.chance(window?.rate ?? 0) ? random : undefined;
  }

  #hits(kind: FaultKind): boolean {
    return this.#hit(kind) !== undefined;
  }

  applied(kind: string, times = 1): void {
    const k = kind as FaultKind;
    this.injected[k] = (this.injected[k] ?? 0) + times;
    if (HOLDING_KILLS.has(k)) this.#killedAt = Date.now();
  }

  killPoint(fn: FunctionName): KillPoint | undefined {
    const random = this.#hit(`kill-${fn}`);
    if (random === undefined) return undefined;
    return {
      atRequest: random.int(1, fn === 'watch-bridge' ? 40 : 8),
      when: random.pick(['before-send', 'after-answer'] as const),
    };
  }

  delivery(fn: FunctionName): DeliveryFault | undefined {
    if (fn === 'watch-bridge') return undefined;
    if (this.#hits('sqs-duplicate')) return { kind: 'sqs-duplicate' };
    if (this.#hits('sqs-redelivery')) return { kind: 'sqs-redelivery' };
    return undefined;
  }

  deliveryDelayMs(fn: FunctionName): number {
    const random = fn === 'watch-bridge' ? undefined : this.#hit('sqs-delay');
    return random === undefined ? 0 : random.int(200, 3_000);
  }

  skewMs(): number {
    const random = this.#hit('clock-skew');
    return random === undefined
      ? 0
      : random.pick([-1, 1]) * random.int(200, 2_000);
  }

  /** The API proxy's decider. */
  readonly api: ApiFaultDecider = (request) => this.#apiAction(request.watch);

  #apiAction(watch: boolean): ApiFaultAction | undefined {
    if (this.#hits('cluster-unreachable')) {
      return { kind: 'cluster-unreachable' };
    }
    if (watch && this.#hits('watch-410')) return { kind: 'watch-410' };
    let random = watch ? this.#hit('watch-cut') : undefined;
    if (random) return { kind: 'watch-cut', afterMs: random.int(50, 2_000) };
    random = this.#hit('api-429');
    if (random) return { kind: 'api-429', retryAfterSeconds: random.int(0, 2) };
    random = this.#hit('api-5xx');
    if (random)
      return { kind: 'api-5xx', status: random.pick([500, 503] as const) };
    if (this.#hits('api-reset')) return { kind: 'api-reset' };
    random = this.#hit('api-latency');
    if (random) return { kind: 'api-latency', ms: random.int(50, 1_500) };
    return undefined;
  }

  /** The DynamoDB proxy's interferer. */
  readonly dynamodb: Interferer = ({ action }) => {
    let out: Interference | undefined;
    if (this.#hits('dynamodb-throttle')) {
      out = {
        kind: 'answer',
        status: 400,
        errorType: `${DYNAMO_ERROR}ThrottlingException`,
      };
    } else if (this.#hits('dynamodb-5xx')) {
      out = {
        kind: 'answer',
        status: 500,
        errorType: `${DYNAMO_ERROR}InternalServerError`,
      };
    } else if (
      DYNAMO_WRITES.has(action) &&
      this.#hits('dynamodb-lost-response')
    ) {
      out = { kind: 'lose-response' };
    }
    if (out) {
      this.applied(
        out.kind === 'lose-response'
          ? 'dynamodb-lost-response'
          : out.status === 400
            ? 'dynamodb-throttle'
            : 'dynamodb-5xx'
      );
    }
    return out;
  };

  /** The SQS proxy's interferer (the product's sends only). */
  readonly sqs: Interferer = ({ action }) => {
    if (!action.startsWith('SendMessage') || !this.#hits('sqs-send-5xx')) {
      return undefined;
    }
    this.applied('sqs-send-5xx');
    return {
      kind: 'answer',
      status: 500,
      errorType: 'com.amazonaws.sqs#InternalError',
    };
  };
}
