/**
 * A fault plan at work during a run: it answers the containers (kill
 * points, delivery, clock skew), the API proxy and the AWS proxies with the
 * windows open at this moment, and counts what it injected. Once stopped it
 * injects nothing, so the run can check that everything converges.
 */
import type { Interference, Interferer } from '../bench/counting-proxy.js';
import type { FunctionName } from '../integration/serverless/stack.js';
import type { FaultKind, FaultPlan, FaultWindow } from './fault-plan.js';
import type {
  ApiFaultAction,
  ApiFaultDecider,
} from './faults/api-fault-proxy.js';
import type {
  ContainerFaults,
  DeliveryFault,
  KillPoint,
} from './faults/lambda-containers.js';
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

/** The live faults of one run. */
export class ActiveFaults implements ContainerFaults {
  /** Faults injected, by kind. */
  readonly injected: Partial<Record<FaultKind, number>> = {};
  readonly #plan: FaultPlan;
  readonly #random: SeededRandom;
  #startedAt: number | undefined;
  #stopped = false;

  constructor(plan: FaultPlan, random: SeededRandom) {
    this.#plan = plan;
    this.#random = random;
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

  /** Whether any window is open now (the controller may be held back). */
  anyOpen(): boolean {
    return this.#open().length > 0;
  }

  #open(): FaultWindow[] {
    if (this.#stopped || this.#startedAt === undefined) return [];
    const t = Date.now() - this.#startedAt;
    return this.#plan.windows.filter((w) => w.fromMs <= t && t < w.toMs);
  }

  /** Returns the open window of `kind` that hits this call, if any. */
  #hits(kind: FaultKind): boolean {
    const window = this.#open().find((w) => w.kind === kind);
    return window !== undefined && this.#random.chance(window.rate);
  }

  applied(kind: string, times = 1): void {
    const k = kind as FaultKind;
    this.injected[k] = (this.injected[k] ?? 0) + times;
  }

  killPoint(fn: FunctionName): KillPoint | undefined {
    if (!this.#hits(`kill-${fn}`)) return undefined;
    return {
      atRequest: this.#random.int(1, fn === 'watch-bridge' ? 40 : 12),
      when: this.#random.pick(['before-send', 'after-answer'] as const),
    };
  }

  delivery(fn: FunctionName): DeliveryFault | undefined {
    if (fn === 'watch-bridge') return undefined;
    if (this.#hits('sqs-duplicate')) return { kind: 'sqs-duplicate' };
    if (this.#hits('sqs-redelivery')) return { kind: 'sqs-redelivery' };
    if (this.#hits('sqs-delay')) {
      return { kind: 'sqs-delay', ms: this.#random.int(200, 3_000) };
    }
    return undefined;
  }

  skewMs(): number {
    if (!this.#hits('clock-skew')) return 0;
    return this.#random.pick([-1, 1]) * this.#random.int(200, 2_000);
  }

  /** The API proxy's decider. */
  readonly api: ApiFaultDecider = (request) => this.#apiAction(request.watch);

  #apiAction(watch: boolean): ApiFaultAction | undefined {
    if (this.#hits('cluster-unreachable')) {
      return { kind: 'cluster-unreachable' };
    }
    if (watch && this.#hits('watch-410')) return { kind: 'watch-410' };
    if (watch && this.#hits('watch-cut')) {
      return { kind: 'watch-cut', afterMs: this.#random.int(50, 2_000) };
    }
    if (this.#hits('api-429')) {
      return { kind: 'api-429', retryAfterSeconds: this.#random.int(0, 2) };
    }
    if (this.#hits('api-5xx')) {
      return {
        kind: 'api-5xx',
        status: this.#random.pick([500, 503] as const),
      };
    }
    if (this.#hits('api-reset')) return { kind: 'api-reset' };
    if (this.#hits('api-latency')) {
      return { kind: 'api-latency', ms: this.#random.int(50, 1_500) };
    }
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
