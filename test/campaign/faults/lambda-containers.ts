/**
 * Lambda containers for the fault campaign: every invocation runs in a
 * container of its own (a wiring built as a cold start builds it, kept warm
 * for later invocations of the same function), and a container can die at
 * any point between two of its I/O calls — as a crashed or timed-out
 * sandbox does — and with it every request, watch and retry it had open.
 *
 * How a kill is made real without a process per container: each container
 * runs inside an AsyncLocalStorage scope, and Node publishes every outgoing
 * HTTP request (AWS SDK and Kubernetes alike) on the
 * `http.client.request.created` diagnostics channel in the async context of
 * the code that made it. A dead container's requests are destroyed there
 * before a byte is sent, and its open ones are destroyed at the kill; the
 * invocation's promise is abandoned, so its batch stays on the queue until
 * the visibility timeout, exactly as with a dead sandbox.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { subscribe } from 'node:diagnostics_channel';
import type { ClientRequest } from 'node:http';
import type { SQSEvent } from 'aws-lambda';
import { systemClock } from '#lib/adapters/system-clock.js';
import type { Clock } from '#lib/ports/index.js';
import type { AwsWiring } from '#lib/wiring/aws.js';
import { InvocationKilledError } from '../../helpers/esm-poller.js';
import { lambdaContext } from '../../helpers/lambda-context.js';
import type {
  FunctionHost,
  FunctionName,
  Handler,
} from '../../integration/serverless/stack.js';

/** Where an invocation dies: at its n-th request, before sending it or after its answer. */
export interface KillPoint {
  atRequest: number;
  when: 'before-send' | 'after-answer';
}

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

/** One container's scope: its open requests and how it dies. */
class ContainerScope {
  dead = false;
  requests = 0;
  /** Called when the armed kill point fires. */
  readonly #fired: () => void;
  readonly #open = new Set<ClientRequest>();
  #killPoint: KillPoint | undefined;
  #onDeath: (() => void)[] = [];

  constructor(fired: () => void) {
    this.#fired = fired;
  }

  /** Arms the scope to die at the invocation's n-th request from now. */
  arm(point: KillPoint | undefined): void {
    this.#killPoint = point && {
      ...point,
      atRequest: this.requests + point.atRequest,
    };
  }

  onDeath(f: () => void): void {
    this.#onDeath.push(f);
  }

  /** Sees one request of this container start. */
  started(request: ClientRequest): void {
    if (this.dead) {
      request.destroy(new Error('the container is dead'));
      return;
    }
    this.requests++;
    this.#open.add(request);
    request.once('close', () => this.#open.delete(request));
    const point = this.#killPoint;
    if (point?.atRequest !== this.requests) return;
    const die = () => {
      if (this.dead) return;
      this.#fired();
      this.kill();
    };
    if (point.when === 'before-send') die();
    else request.once('response', die);
  }

  kill(): void {
    if (this.dead) return;
    this.dead = true;
    for (const request of this.#open) {
      request.destroy(new Error('the container died'));
    }
    for (const f of this.#onDeath) f();
  }
}

const scopes = new AsyncLocalStorage<ContainerScope>();
let subscribed = false;

/** Subscribes once to the HTTP client channel (process-wide). */
const watchRequests = (): void => {
  if (subscribed) return;
  subscribed = true;
  subscribe('http.client.request.created', (message) => {
    const { request } = message as { request: ClientRequest };
    scopes.getStore()?.started(request);
  });
};

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
export class CampaignContainers {
  /** Containers started, killed by a fault, and ended at their timeout. */
  readonly counts = { started: 0, killed: 0, timedOut: 0 };
  readonly #newWiring: (clock?: Clock) => AwsWiring;
  readonly #faults: ContainerFaults;
  readonly #all: { scope: ContainerScope; wiring: AwsWiring }[] = [];

  constructor(
    newWiring: (clock?: Clock) => AwsWiring,
    faults: ContainerFaults
  ) {
    watchRequests();
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
      this.#all.push({ scope, wiring });
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
      const running = scopes.run(scope, () =>
        Promise.resolve().then(() => container.handler(event, context))
      );
      running.catch(() => undefined);
      return Promise.race([running, died]).finally(() => {
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
