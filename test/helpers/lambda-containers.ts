/**
 * Emulated Lambda containers: every invocation runs in a container of its
 * own (a wiring built as a cold start builds it, kept warm for later
 * invocations of the same function, more of them when invocations
 * overlap). A container dies at its function's timeout, as Lambda ends a
 * timed-out sandbox — with every request, watch and retry it had open (see
 * container-scope.ts) — and, in the fault campaign, at a chosen point
 * between two of its I/O calls. A dead invocation's promise is abandoned
 * and its batch stays on the queue until the visibility timeout, exactly
 * as with a dead sandbox. The benchmarks use it without faults, for the
 * timeout and for what each function's containers read and were billed.
 */
import type { SQSEvent } from 'aws-lambda';
import { systemClock } from '#lib/adapters/system-clock.js';
import type { Clock } from '#lib/ports/index.js';
import type { AwsWiring } from '#lib/wiring/aws.js';
import type {
  FunctionHost,
  FunctionName,
  Handler,
} from '../integration/serverless/stack.js';
import {
  addTraffic,
  ContainerScope,
  type KillPoint,
  runInScope,
  type Traffic,
} from './container-scope.js';
import { InvocationKilledError } from './esm-poller.js';
import { lambdaContext } from './lambda-context.js';

export type { KillPoint } from './container-scope.js';

/** How a batch is delivered. */
export type DeliveryFault =
  | { kind: 'sqs-duplicate' }
  | { kind: 'sqs-redelivery' };

/** The faults the containers apply, asked per invocation. */
export interface ContainerFaults {
  killPoint(fn: FunctionName): KillPoint | undefined;
  delivery(fn: FunctionName): DeliveryFault | undefined;
  /** How long a received batch waits before its invocation (0: none). */
  deliveryDelayMs(fn: FunctionName): number;
  /** The clock skew of a new container (ms, may be negative). */
  skewMs(fn: FunctionName): number;
  /** Called whenever a fault is applied (for the run's counts). */
  applied(kind: string): void;
}

/** Containers that only die at their timeout. */
export const NO_FAULTS: ContainerFaults = {
  killPoint: () => undefined,
  delivery: () => undefined,
  deliveryDelayMs: () => 0,
  skewMs: () => 0,
  applied: () => undefined,
};

/** One finished invocation: the handler's own time, what Lambda bills. */
export interface InvocationRecord {
  fn: FunctionName;
  ms: number;
  outcome: 'returned' | 'threw' | 'killed';
}

/** A container: its wiring, its handler and its scope. */
interface Container<E, R> {
  scope: ContainerScope;
  wiring: AwsWiring;
  handler: Handler<E, R>;
}

/** Returns a clock `skewMs` off the system's. */
const skewedClock = (skewMs: number): Clock =>
  skewMs === 0 ? systemClock : { now: () => systemClock.now() + skewMs };

/** Hosts each function's invocations in containers that can die. */
export class LambdaContainers {
  /** Containers started, killed by a fault, and ended at their timeout. */
  readonly counts = { started: 0, killed: 0, timedOut: 0 };
  /** Every finished invocation, in order of completion. */
  readonly invocations: InvocationRecord[] = [];
  readonly #newWiring: (clock?: Clock) => AwsWiring;
  readonly #faults: ContainerFaults;
  readonly #all: {
    fn: FunctionName;
    scope: ContainerScope;
    wiring: AwsWiring;
  }[] = [];

  constructor(
    newWiring: (clock?: Clock) => AwsWiring,
    faults: ContainerFaults = NO_FAULTS
  ) {
    this.#newWiring = newWiring;
    this.#faults = faults;
  }

  /** The stack's FunctionHost over these containers. */
  get host(): FunctionHost {
    return {
      host: <E, R>(
        name: FunctionName,
        makeHandler: (wiring: AwsWiring) => Handler<E, R>
      ): Handler<E, R> => this.#hostFunction(name, makeHandler),
      deliveryDelayMs: (name) => {
        const ms = this.#faults.deliveryDelayMs(name);
        if (ms > 0) this.#faults.applied('sqs-delay');
        return ms;
      },
    };
  }

  /**
   * The requests that `fn`'s containers, dead ones included, sent to
   * `destination` (`host:port`), and the bytes they read from it.
   */
  trafficOf(fn: FunctionName, destination: string): Traffic {
    const sum: Traffic = { requests: 0, bytesRead: 0, byKind: {} };
    for (const c of this.#all) {
      if (c.fn !== fn) continue;
      for (const [kind, k] of Object.entries(
        c.scope.trafficTo(destination).byKind
      )) {
        addTraffic(sum, kind, k.requests, k.bytesRead);
      }
    }
    return sum;
  }

  #hostFunction<E, R>(
    name: FunctionName,
    makeHandler: (wiring: AwsWiring) => Handler<E, R>
  ): Handler<E, R> {
    const idle: Container<E, R>[] = [];
    const cold = (): Container<E, R> => {
      const scope = new ContainerScope(() => {
        this.counts.killed++;
        this.#faults.applied(`kill-${name}`);
      });
      const skew = this.#faults.skewMs(name);
      if (skew !== 0) this.#faults.applied('clock-skew');
      const wiring = this.#newWiring(skewedClock(skew));
      this.counts.started++;
      this.#all.push({ fn: name, scope, wiring });
      scope.onDeath(() => {
        // The dead container's watches and caches go with it.
        void wiring.sessions.close().catch(() => undefined);
      });
      return { scope, wiring, handler: makeHandler(wiring) };
    };
    /** A warm container if one is idle (Lambda never routes to a dead one). */
    const take = (): Container<E, R> => {
      for (let warm = idle.pop(); warm; warm = idle.pop()) {
        if (!warm.scope.dead) return warm;
      }
      return cold();
    };
    const invokeIn = (
      container: Container<E, R>,
      event: E,
      context: Parameters<Handler<E, R>>[1],
      kill: KillPoint | undefined
    ): Promise<R> => {
      const { scope } = container;
      const started = performance.now();
      scope.arm(kill);
      const died = new Promise<never>((_, reject) =>
        scope.onDeath(() => reject(new InvocationKilledError()))
      );
      died.catch(() => undefined);
      // Lambda ends a timed-out invocation by ending its sandbox.
      const timeout = setTimeout(() => {
        if (!scope.dead) this.counts.timedOut++;
        scope.kill();
      }, context.getRemainingTimeInMillis());
      const running = runInScope(scope, () =>
        Promise.resolve().then(() => container.handler(event, context))
      );
      running.catch(() => undefined);
      const record = (outcome: InvocationRecord['outcome']) =>
        this.invocations.push({
          fn: name,
          ms: performance.now() - started,
          outcome,
        });
      return Promise.race([running, died])
        .then(
          (result) => {
            record('returned');
            return result;
          },
          (e: unknown) => {
            record(scope.dead ? 'killed' : 'threw');
            throw e;
          }
        )
        .finally(() => {
          clearTimeout(timeout);
          // A kill point that did not fire dies with the invocation.
          scope.arm(undefined);
          if (!scope.dead) idle.push(container);
        });
    };
    return async (event, context) => {
      const timeoutMs = context.getRemainingTimeInMillis();
      const delivery = this.#faults.delivery(name);
      if (delivery) this.#faults.applied(delivery.kind);
      const kill = this.#faults.killPoint(name);
      const result = await invokeIn(take(), event, context, kill);
      if (delivery?.kind === 'sqs-duplicate') {
        // At-least-once: the same messages received again. On a FIFO queue
        // a group in flight blocks the group, and Lambda's timeout is below
        // the visibility timeout, so a second receive only ever follows the
        // first invocation's end, never overlaps it. It lands on a cold
        // container (no warm cache) with a full timeout of its own.
        await invokeIn(
          cold(),
          structuredClone(event),
          lambdaContext({ functionName: context.functionName, timeoutMs }),
          undefined
        ).catch(() => undefined);
      }
      if (delivery?.kind === 'sqs-redelivery') {
        // The delete was lost: every message comes back after the visibility timeout.
        const records = (event as unknown as SQSEvent).Records ?? [];
        return {
          batchItemFailures: records.map((r) => ({
            itemIdentifier: r.messageId,
          })),
        } as R;
      }
      return result;
    };
  }

  /** Kills every container (the end of a run), closing their sessions. */
  async closeAll(): Promise<void> {
    await Promise.all(
      this.#all.map(async ({ scope, wiring }) => {
        if (!scope.dead) await wiring.sessions.close().catch(() => undefined);
        scope.kill();
      })
    );
  }
}
