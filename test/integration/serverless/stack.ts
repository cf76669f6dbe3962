/**
 * The serverless product on the test bed: the deployed wiring
 * (createAwsWiring, createDispatchWiring) on DynamoDB Local and fauxqs, the
 * handlers' real middy chains — reconcile and requeue driven by pollers that
 * behave like Lambda's SQS event-source mapping, the bridge dispatcher
 * ticking as its schedule would (faster), and each turn it launches run by
 * the bridge handler as an asynchronous invocation would. The cluster is
 * registered in the registry table and reached under the reconciler's
 * least-privilege identity.
 */

import { randomUUID } from 'node:crypto';
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { inject } from 'vitest';
import { DynamoClusterRegistry } from '#lib/adapters/dynamodb/dynamo-cluster-registry.js';
import { kubeConfigFromFile } from '#lib/adapters/kube/kube-config-for-cluster.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import type { ClusterRunResult } from '#lib/bridge/bridge-invocation.js';
import type { Config } from '#lib/config.js';
import { createBridgeDispatchHandler } from '#lib/handlers/bridge-dispatch-handler.js';
import { createReconcileHandler } from '#lib/handlers/reconcile-handler.js';
import { createRequeueHandler } from '#lib/handlers/requeue-handler.js';
import { createWatchBridgeHandler } from '#lib/handlers/watch-bridge-handler.js';
import type { BridgeTurn, Clock, ClusterRecord } from '#lib/ports/index.js';
import { type AwsWiring, createAwsWiring } from '#lib/wiring/aws.js';
import {
  createDispatchWiring,
  createFleetWakeWiring,
} from '#lib/wiring/aws-dispatch.js';
import { LocalMetrics } from '#lib/wiring/local-runtime.js';
import { createTestTable, type TestTable } from '../../helpers/dynamo-table.js';
import { EsmPoller } from '../../helpers/esm-poller.js';
import { FakeLogger } from '../../helpers/fakes/fake-logger.js';
import { lambdaContext } from '../../helpers/lambda-context.js';
import {
  createSqsQueues,
  type SqsTestQueues,
} from '../../helpers/sqs-queues.js';

/**
 * The reconcile and requeue handlers' own lines — a record that failed and
 * is delivered again, a timer's outcome — in the stack's log beside the
 * wiring's, so a campaign run's timeline shows them (seed 180457 left no
 * trace of either). Powertools writes each line as JSON to its console.
 */
const handlerLogger = (sink: FakeLogger): PowertoolsLogger => {
  const logger = new PowertoolsLogger({ logLevel: 'DEBUG' });
  const write = (text: string) => {
    const {
      level,
      message,
      function_name,
      timestamp: _t,
      service: _s,
      cold_start: _c,
      function_arn: _a,
      function_memory_size: _m,
      function_request_id: _r,
      sampling_rate: _sr,
      xray_trace_id: _x,
      ...rest
    } = JSON.parse(text) as Record<string, string>;
    const fields = { function: function_name, ...rest };
    const to = (level ?? '').toLowerCase();
    const method =
      to === 'critical'
        ? 'error'
        : to === 'warn' || to === 'error' || to === 'info'
          ? to
          : 'debug';
    sink[method](message ?? '', fields);
  };
  (logger as unknown as { console: Record<string, unknown> }).console = {
    log: write,
    debug: write,
    info: write,
    warn: write,
    error: write,
    trace: write,
  };
  return logger;
};

/** Visibility of the test queues: a crashed invocation's batch returns soon. */
const VISIBILITY_SECONDS = 6;
/** Below the visibility timeout, as Lambda demands. */
const FUNCTION_TIMEOUT_MS = 5_000;
/** The bridge functions' timeouts, as deployed (serverless.yml). */
const BRIDGE_TIMEOUT_MS = { watch: 900_000, economy: 60_000 } as const;
/** The dispatcher's schedule, sixty times faster than the deployed one. */
const DISPATCH_TICK_MS = 1_000;

/** Knobs of one stack. */
export interface StackOptions {
  /** Kubeconfig of the identity the reconciler uses. */
  kubeconfigPath: string;
  /** How long one watch-mode bridge invocation watches. */
  bridgeWatchSeconds?: number;
  bridgeMode?: 'watch' | 'economy';
  /** Which DaemonSets the cluster is registered to own (default apps/v1). */
  ownership?: ClusterRecord['ownership'];
  /** Lease of a bridge that died without releasing it (default 4 s). */
  leaseTtlMs?: number;
  /** Concurrent reconcile invocations (default 2). */
  reconcileConcurrency?: number;
  /** How often the dispatcher ticks (default DISPATCH_TICK_MS). */
  dispatchTickMs?: number;
  /** How often every DaemonSet is queued again (default 1 h). */
  bridgeResyncSeconds?: number;
  /** The emulators (default: the test project's, via `inject`). */
  endpoints?: { dynamodb: string; sqs: string };
  /** Where the product's own clients go (default: `endpoints`; benches count calls through proxies). */
  productEndpoints?: { dynamodb: string; sqs: string };
  /**
   * The reconcile and requeue functions' timeout and the queues' visibility
   * (default 5 s and 6 s, so a crashed test invocation's batch returns
   * soon; benchmarks pass the deployed 60 s and 360 s).
   */
  timing?: { functionTimeoutMs: number; visibilitySeconds: number };
  /**
   * Where the functions' invocations run (default: all in one warm
   * container, the stack's `wiring`); the fault campaign gives each
   * invocation a container of its own that it can kill.
   */
  host?: (
    newWiring: (clock?: Clock, endpoints?: Endpoints) => AwsWiring
  ) => FunctionHost;
  /** Where the dispatcher's clients go (default: the product's endpoints). */
  dispatchEndpoints?: Endpoints;
}

/** The emulators' endpoints, one per service. */
export interface Endpoints {
  dynamodb: string;
  sqs: string;
}

/** The functions a stack runs. */
export type FunctionName = 'reconcile' | 'requeue' | 'watch-bridge';

/** A Lambda handler as the stack invokes it. */
export type Handler<E, R> = (event: E, context: Context) => Promise<R>;

/** Runs a function's invocations, each in a container built on a wiring. */
export interface FunctionHost {
  host<E, R>(
    name: FunctionName,
    makeHandler: (wiring: AwsWiring) => Handler<E, R>
  ): Handler<E, R>;
  /** How long a received batch of `name` waits before its invocation. */
  deliveryDelayMs?(name: FunctionName): number;
}

/** A running stack; `stop()` leaves nothing behind but the table rows. */
export class ServerlessStack {
  readonly cluster = `it-${randomUUID().slice(0, 8)}`;
  readonly logger = new FakeLogger();
  readonly metrics = new LocalMetrics();
  /** Each finished bridge invocation's cluster outcomes. */
  readonly bridgeRuns: ClusterRunResult[][] = [];
  /** Every turn the dispatcher launched. */
  readonly bridgeTurns: BridgeTurn[] = [];
  /** Each finished bridge invocation's turn and wall time. */
  readonly bridgeInvocations: { turn: BridgeTurn; durationMs: number }[] = [];
  /** Each dispatcher tick's wall time. */
  readonly dispatchTicks: number[] = [];
  reconcilePoller!: EsmPoller;
  requeuePoller!: EsmPoller;
  wiring!: AwsWiring;
  table!: TestTable;
  queues!: SqsTestQueues;
  config!: Config;
  #bridgeLoop: Promise<void> | undefined;
  readonly #turnsRunning = new Set<Promise<void>>();
  #bridgeAbort = new AbortController();
  readonly #o: StackOptions;
  #functionHost: FunctionHost | undefined;
  #endpoints: { dynamodb: string; sqs: string } = { dynamodb: '', sqs: '' };

  private constructor(o: StackOptions) {
    this.#o = o;
  }

  /** Creates table and queues, registers the cluster, starts everything. */
  static async start(o: StackOptions): Promise<ServerlessStack> {
    const stack = new ServerlessStack(o);
    await stack.#setUp();
    return stack;
  }

  async #setUp(): Promise<void> {
    const endpoints = this.#o.endpoints ?? {
      dynamodb: inject('dynamodbEndpoint'),
      sqs: inject('sqsEndpoint'),
    };
    this.table = await createTestTable(endpoints.dynamodb);
    this.queues = await createSqsQueues({
      endpoint: endpoints.sqs,
      visibilityTimeoutSeconds:
        this.#o.timing?.visibilitySeconds ?? VISIBILITY_SECONDS,
    });
    this.config = {
      tableName: this.table.tableName,
      workQueueUrl: this.queues.work.url,
      delayQueueUrl: this.queues.delay.url,
      logLevel: 'WARN',
      bridgeWatchSeconds: this.#o.bridgeWatchSeconds ?? 20,
      bridgeEconomySeconds: 10,
      bridgeResyncSeconds: this.#o.bridgeResyncSeconds ?? 3_600,
      reconcilePerCluster: 5,
      bridgeClustersPerTurn: 10,
      bridgeNodesPerTurn: 5_000,
      bridgeEconomyConcurrency: 50,
      perClusterMetrics: false,
    };
    this.#endpoints = this.#o.productEndpoints ?? endpoints;
    this.wiring = this.newWiring();
    await this.registerCluster(this.cluster, this.#o.kubeconfigPath, {
      ownership: this.#o.ownership ?? 'apps/v1',
      bridgeMode: this.#o.bridgeMode ?? 'watch',
    });
    // One each: a Powertools logger carries its invocation's context.
    const logger = handlerLogger(this.logger);
    const requeueLogger = handlerLogger(this.logger);
    const metrics = new Metrics({ namespace: 'Test', serviceName: 'it' });
    this.reconcilePoller = await EsmPoller.start({
      client: this.queues.client,
      queueUrl: this.queues.work.url,
      handler: this.#hosted('reconcile', (w) =>
        createReconcileHandler({
          reconciler: w.reconciler,
          leases: w.messageLeases,
          logger,
          metrics,
        })
      ),
      concurrency: this.#o.reconcileConcurrency ?? 2,
      functionTimeoutMs:
        this.#o.timing?.functionTimeoutMs ?? FUNCTION_TIMEOUT_MS,
      functionName: 'reconcile',
      deliveryDelayMs: () =>
        this.#functionHost?.deliveryDelayMs?.('reconcile') ?? 0,
    });
    this.requeuePoller = await EsmPoller.start({
      client: this.queues.client,
      queueUrl: this.queues.delay.url,
      handler: this.#hosted('requeue', (w) =>
        createRequeueHandler({ timers: w.timers, logger: requeueLogger })
      ),
      functionTimeoutMs:
        this.#o.timing?.functionTimeoutMs ?? FUNCTION_TIMEOUT_MS,
      functionName: 'requeue',
      deliveryDelayMs: () =>
        this.#functionHost?.deliveryDelayMs?.('requeue') ?? 0,
    });
    this.startBridge();
  }

  /**
   * Ticks the bridge dispatcher until stopped; each turn it launches runs
   * at once in the bridge handler, unawaited, as an asynchronous Lambda
   * invocation would.
   */
  startBridge(): void {
    this.#bridgeAbort = new AbortController();
    const signal = this.#bridgeAbort.signal;
    const leaseTtlMs = this.#o.leaseTtlMs ?? 4_000;
    const silent = new PowertoolsLogger({ logLevel: 'SILENT' });
    const bridge = this.#hosted('watch-bridge', (w) =>
      createWatchBridgeHandler({
        bridge: w.bridge,
        config: this.config,
        logger: silent,
        leaseTtlMs,
        signal,
      })
    );
    const launch = async (turn: BridgeTurn): Promise<void> => {
      this.bridgeTurns.push(turn);
      const startedAt = systemClock.now();
      const running = bridge(
        structuredClone(turn),
        lambdaContext({
          functionName: `${turn.mode}-bridge`,
          timeoutMs: BRIDGE_TIMEOUT_MS[turn.mode],
        })
      ).then(
        (runs) => {
          this.bridgeRuns.push(runs);
          this.bridgeInvocations.push({
            turn,
            durationMs: systemClock.now() - startedAt,
          });
        },
        () => undefined
      );
      this.#turnsRunning.add(running);
      void running.finally(() => this.#turnsRunning.delete(running));
    };
    const dispatch = createBridgeDispatchHandler({
      dispatch: createDispatchWiring(this.config, this.logger, {
        ...this.#clientOverrides(this.#o.dispatchEndpoints),
        launcher: { launch },
      }),
      fleet: createFleetWakeWiring(
        this.config,
        this.logger,
        this.#clientOverrides(this.#o.dispatchEndpoints)
      ),
      config: this.config,
      logger: silent,
      tickMs: this.#o.dispatchTickMs ?? DISPATCH_TICK_MS,
      leaseTtlMs,
    });
    this.#bridgeLoop = (async () => {
      while (!signal.aborted) {
        const tickAt = systemClock.now();
        await dispatch(
          {},
          lambdaContext({ functionName: 'bridge-dispatch', timeoutMs: 30_000 })
        ).catch(() => undefined);
        this.dispatchTicks.push(systemClock.now() - tickAt);
        await abortableSleep(
          this.#o.dispatchTickMs ?? DISPATCH_TICK_MS,
          signal
        );
      }
    })();
  }

  /** Stops the dispatcher and every bridge turn cleanly (checkpoint, release). */
  async stopBridge(): Promise<void> {
    this.#bridgeAbort.abort();
    await this.#bridgeLoop;
    await Promise.all([...this.#turnsRunning]);
  }

  /** Builds the functions' clients and adapters, as a new container does. */
  newWiring(clock?: Clock, endpoints?: Endpoints): AwsWiring {
    return createAwsWiring(this.config, this.logger, this.metrics, {
      ...this.#clientOverrides(endpoints),
      // The test bed's cluster is registered with its kubeconfig file.
      kubeconfigFiles: kubeConfigFromFile,
      ...(clock ? { clock } : {}),
    });
  }

  /** Returns the handler of `name`, hosted as the options say. */
  #hosted<E, R>(
    name: FunctionName,
    makeHandler: (wiring: AwsWiring) => Handler<E, R>
  ): Handler<E, R> {
    this.#functionHost ??= this.#o.host?.((clock, endpoints) =>
      this.newWiring(clock, endpoints)
    );
    return this.#functionHost
      ? this.#functionHost.host(name, makeHandler)
      : makeHandler(this.wiring);
  }

  /** Registers a cluster reached through a kubeconfig file. */
  async registerCluster(
    id: string,
    kubeconfigPath: string,
    o: Pick<ClusterRecord, 'ownership' | 'bridgeMode' | 'labels'> = {
      ownership: 'apps/v1',
      bridgeMode: 'watch',
    }
  ): Promise<void> {
    await new DynamoClusterRegistry({
      client: this.table.client,
      tableName: this.table.tableName,
      clock: systemClock,
    }).put({
      id,
      endpoint: '',
      caData: '',
      auth: { type: 'kubeconfig', path: kubeconfigPath },
      ...o,
    });
  }

  /** The product's SDK client options: the emulators, test credentials. */
  #clientOverrides(endpoints?: Endpoints) {
    return {
      endpoints: endpoints ?? this.#endpoints,
      region: 'us-east-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    };
  }

  /** Stops pollers and bridge and deletes queues and table. */
  async stop(): Promise<void> {
    await this.stopBridge();
    await this.reconcilePoller.stop();
    await this.requeuePoller.stop();
    await this.wiring.sessions.close();
    await this.queues.destroy();
    this.table.client.destroy();
  }
}

/** Waits until `check` returns true, polling every `everyMs`. */
export const eventually = async (
  what: string,
  check: () => Promise<boolean>,
  timeoutMs = 30_000,
  everyMs = 200
): Promise<number> => {
  const started = systemClock.now();
  for (;;) {
    if (await check()) return systemClock.now() - started;
    if (systemClock.now() - started > timeoutMs) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await abortableSleep(everyMs);
  }
};
