/**
 * The serverless stack under benchmark, in a process of its own: its
 * functions run in emulated Lambda containers (test/helpers/lambda-containers.ts)
 * that honour the deployed timeout and die at it, while the emulators, the
 * counting proxies and the convergence poller stay in the bench's process.
 * So a slow stack cannot slow the poller that times it, nor the SQS
 * emulator it depends on, and its peak RSS is its own.
 *
 * The child is this very bundle started again with STACK_HOST_ENV set
 * (main.ts hands over to `serveStack` first thing); the two talk over
 * Node's IPC channel.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Traffic } from '../helpers/container-scope.js';
import type { FakeLogger } from '../helpers/fakes/fake-logger.js';
import { LambdaContainers } from '../helpers/lambda-containers.js';
import { queueCounts, sqsTestClient } from '../helpers/sqs-queues.js';
import { ServerlessStack } from '../integration/serverless/stack.js';

/** Set in the child's environment: run the stack, not the bench. */
export const STACK_HOST_ENV = 'BENCH_STACK_HOST';

/** What the child's stack is started with. */
export interface StackProcessOptions {
  kubeconfigPath: string;
  /** The API server as `host:port`, whose traffic is counted. */
  apiServer: string;
  /** The emulators (queues and table are created there). */
  endpoints: { dynamodb: string; sqs: string };
  /** Where the product's clients go (the bench's counting proxies). */
  productEndpoints: { dynamodb: string; sqs: string };
  timing: { functionTimeoutMs: number; visibilitySeconds: number };
}

/** The stack's counters since it started. */
export interface StackCounters {
  reconcileInvocations: number;
  reconcileRecords: number;
  requeueInvocations: number;
  syncs: number;
  syncErrors: number;
  creates: number;
  deletes: number;
  /** Requests of the reconcile containers to the API server, and bytes read. */
  kubeRequests: number;
  kubeBytesRead: number;
  /** The same by kind of request (`GET pods watch`, `POST pods`, …). */
  kubeByKind: Traffic['byKind'];
  /** Each finished reconcile invocation's handler time: what Lambda bills. */
  reconcileMs: number[];
  containers: { started: number; killed: number; timedOut: number };
  /** The stack process's peak resident set. */
  peakRssBytes: number;
  logLines: number;
}

/** One stack log line, as the stack's logger keeps it. */
export type StackLogLine = FakeLogger['lines'][number];

type Ask =
  | { op: 'start'; options: StackProcessOptions }
  | { op: 'counters' }
  | { op: 'lines'; from: number }
  | { op: 'stop' };
type Request = Ask & { id: number };

type Reply = { id: number; value?: unknown; error?: string };

/** What `start` answers. */
interface Started {
  workQueueUrl: string;
  delayQueueUrl: string;
}

/** The child's side: serves one stack until told to stop, then exits. */
export const serveStack = (): Promise<never> =>
  new Promise<never>(() => {
    let stack: ServerlessStack | undefined;
    let containers: LambdaContainers | undefined;
    let apiServer = '';
    const counters = (s: ServerlessStack, c: LambdaContainers) => {
      const reconcile = s.reconcilePoller.invocations;
      const kube = c.trafficOf('reconcile', apiServer);
      return {
        reconcileInvocations: reconcile.length,
        reconcileRecords: reconcile.reduce((a, i) => a + i.records.length, 0),
        requeueInvocations: s.requeuePoller.invocations.length,
        syncs: s.metrics.syncs,
        syncErrors: s.metrics.syncErrors,
        creates: s.metrics.creates,
        deletes: s.metrics.deletes,
        kubeRequests: kube.requests,
        kubeBytesRead: kube.bytesRead,
        kubeByKind: kube.byKind,
        reconcileMs: c.invocations
          .filter((i) => i.fn === 'reconcile')
          .map((i) => i.ms),
        containers: { ...c.counts },
        peakRssBytes: process.resourceUsage().maxRSS * 1024,
        logLines: s.logger.lines.length,
      } satisfies StackCounters;
    };
    const handle = async (r: Request): Promise<unknown> => {
      if (r.op === 'start') {
        apiServer = r.options.apiServer;
        stack = await ServerlessStack.start({
          ...r.options,
          host: (newWiring) => {
            containers = new LambdaContainers(newWiring);
            return containers.host;
          },
        });
        return {
          workQueueUrl: stack.queues.work.url,
          delayQueueUrl: stack.queues.delay.url,
        } satisfies Started;
      }
      if (stack === undefined || containers === undefined) {
        throw new Error(`'${r.op}' before the stack started`);
      }
      if (r.op === 'counters') return counters(stack, containers);
      if (r.op === 'lines') return stack.logger.lines.slice(r.from);
      await stack.stop();
      await containers.closeAll();
      return undefined;
    };
    // A bench that died leaves no stack behind.
    process.on('disconnect', () => process.exit(1));
    process.on('message', (r: Request) => {
      void handle(r).then(
        (value) => {
          process.send?.({ id: r.id, value } satisfies Reply, () => {
            if (r.op === 'stop') process.exit(0);
          });
        },
        (e: unknown) =>
          process.send?.({ id: r.id, error: String(e) } satisfies Reply)
      );
    });
  });

/** The bench's side: a stack running in a child process. */
export class StackProcess {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, (reply: Reply) => void>();
  readonly #sqs: SQSClient;
  #next = 0;
  /** The work and delay queues' URLs. */
  queues = { work: '', delay: '' };

  private constructor(child: ChildProcess, sqsEndpoint: string) {
    this.#child = child;
    this.#sqs = sqsTestClient(sqsEndpoint);
    child.on('message', (reply: Reply) => {
      this.#pending.get(reply.id)?.(reply);
      this.#pending.delete(reply.id);
    });
    child.on('exit', (code) => {
      for (const answer of this.#pending.values()) {
        answer({ id: -1, error: `the stack process exited (${code})` });
      }
      this.#pending.clear();
    });
  }

  /** Starts the child and its stack. */
  static async start(options: StackProcessOptions): Promise<StackProcess> {
    const child = spawn(process.execPath, [fileURLToPath(import.meta.url)], {
      env: { ...process.env, [STACK_HOST_ENV]: '1' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const p = new StackProcess(child, options.endpoints.sqs);
    try {
      const started = (await p.#ask({ op: 'start', options })) as Started;
      p.queues = { work: started.workQueueUrl, delay: started.delayQueueUrl };
      return p;
    } catch (e) {
      child.kill();
      p.#sqs.destroy();
      throw e;
    }
  }

  counters(): Promise<StackCounters> {
    return this.#ask({ op: 'counters' }) as Promise<StackCounters>;
  }

  lines(from = 0): Promise<StackLogLine[]> {
    return this.#ask({ op: 'lines', from }) as Promise<StackLogLine[]>;
  }

  /** Whether the work and delay queues hold no message, in flight or not. */
  async queuesEmpty(): Promise<boolean> {
    for (const url of [this.queues.work, this.queues.delay]) {
      const c = await queueCounts(this.#sqs, url);
      if (c.visible + c.inFlight + c.delayed > 0) return false;
    }
    return true;
  }

  /** Stops the stack (queues and table deleted) and waits for the process. */
  async stop(): Promise<void> {
    const exited = once(this.#child, 'exit');
    if (this.#child.exitCode === null) {
      await this.#ask({ op: 'stop' }).catch(() => this.#child.kill());
      await exited;
    }
    this.#sqs.destroy();
  }

  #ask(request: Ask): Promise<unknown> {
    const id = this.#next++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, (reply) =>
        reply.error === undefined
          ? resolve(reply.value)
          : reject(new Error(reply.error))
      );
      this.#child.send({ ...request, id });
    });
  }
}
