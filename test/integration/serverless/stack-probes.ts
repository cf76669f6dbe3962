/**
 * What the serverless fault tests observe of a running stack: syncs and
 * queue records of one key, quiet periods, and a sampler that watches the
 * pods of a namespace continuously (an invariant checked only at the end
 * would miss a transient double pod).
 */
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { abortableSleep } from '#lib/bridge/abortable-sleep.js';
import { livePodsByNode } from './cluster-state.js';
import type { ServerlessStack } from './stack.js';

/** The fields of one `synced` log line of the Reconciler. */
export interface SyncLine {
  outcome?: string;
  creates?: number;
  deletes?: number;
  reconcileId?: string;
}

/** Returns the `synced` lines of `key`, oldest first. */
export const syncsOf = (stack: ServerlessStack, key: string): SyncLine[] =>
  stack.logger.lines
    .filter(
      (l) =>
        l.message === 'synced' &&
        (l.fields as { daemonSet?: string } | undefined)?.daemonSet === key
    )
    .map((l) => l.fields as SyncLine);

/** Returns the work-queue records of `key` handed to finished invocations. */
export const recordsOf = (
  stack: ServerlessStack,
  key: string,
  fromInvocation = 0
): SQSRecord[] =>
  stack.reconcilePoller.invocations
    .slice(fromInvocation)
    .flatMap((i) => i.records)
    .filter((r) => r.body === key);

/** One log line, its fields as a record. */
export interface LogLine {
  level: string;
  message: string;
  fields: Record<string, unknown>;
}

/** Returns the log lines with `message` whose fields pass `where`. */
export const linesWith = (
  stack: ServerlessStack,
  message: string,
  where: (fields: Record<string, unknown>) => boolean = () => true
): LogLine[] =>
  stack.logger.lines
    .map((l) => ({ ...l, fields: (l.fields ?? {}) as Record<string, unknown> }))
    .filter((l) => l.message === message && where(l.fields));

/**
 * Waits until `key` has had no sync and neither poller a new invocation for
 * `quietMs` (trailing syncs caused by the last status write have run).
 */
export const waitUntilQuiet = async (
  stack: ServerlessStack,
  key: string,
  quietMs: number,
  timeoutMs = 60_000
): Promise<void> => {
  const state = () =>
    [
      syncsOf(stack, key).length,
      stack.reconcilePoller.invocations.length,
      stack.requeuePoller.invocations.length,
    ].join();
  const started = systemClock.now();
  let last = state();
  let since = systemClock.now();
  while (systemClock.now() - since < quietMs) {
    if (systemClock.now() - started > timeoutMs) {
      throw new Error(`${key} did not go quiet within ${timeoutMs} ms`);
    }
    await abortableSleep(100);
    const now = state();
    if (now !== last) {
      last = now;
      since = systemClock.now();
    }
  }
};

/** A promise the test resolves by hand. */
export class Gate {
  readonly opened: Promise<void>;
  #open: () => void = () => {};

  constructor() {
    this.opened = new Promise((resolve) => {
      this.#open = resolve;
    });
  }

  /** Lets everyone waiting on `opened` continue. */
  open(): void {
    this.#open();
  }
}

/** The worst moment a sampler saw. */
export interface PodsPerNodeReport {
  samples: number;
  /** The most live pods seen on one node at once. */
  worst: number;
  /** Where and which pods, when `worst` exceeded one. */
  worstAt?: { node: string; pods: string[] };
}

/** Polls the live pods of a namespace, recording the most on any node. */
export class PodsPerNodeSampler {
  readonly #report: PodsPerNodeReport = { samples: 0, worst: 0 };
  readonly #loop: Promise<void>;
  #stopped = false;

  private constructor(admin: KubeHttp, ns: string, everyMs: number) {
    this.#loop = this.#run(admin, ns, everyMs);
    // Failures surface in stop(); until then nobody awaits the loop.
    this.#loop.catch(() => undefined);
  }

  /** Starts sampling `ns` every `everyMs`. */
  static start(admin: KubeHttp, ns: string, everyMs = 100): PodsPerNodeSampler {
    return new PodsPerNodeSampler(admin, ns, everyMs);
  }

  /** Stops sampling; returns what was seen (throws what the loop threw). */
  async stop(): Promise<PodsPerNodeReport> {
    this.#stopped = true;
    await this.#loop;
    return this.#report;
  }

  async #run(admin: KubeHttp, ns: string, everyMs: number): Promise<void> {
    while (!this.#stopped) {
      const byNode = await livePodsByNode(admin, ns);
      this.#report.samples++;
      for (const [node, pods] of byNode) {
        // Pods the scheduler has not bound yet are on no node: several at
        // once is a burst of creates, not two pods on one node.
        if (node === '') continue;
        if (pods.length > this.#report.worst) {
          this.#report.worst = pods.length;
          this.#report.worstAt = {
            node,
            pods: pods.map((p) => p.metadata?.name ?? ''),
          };
        }
      }
      await abortableSleep(everyMs);
    }
  }
}

/** Returns how many messages a queue holds, visible or in flight. */
export const queueDepth = async (
  client: SQSClient,
  queueUrl: string
): Promise<number> => {
  const { Attributes: a = {} } = await client.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: [
        'ApproximateNumberOfMessages',
        'ApproximateNumberOfMessagesNotVisible',
        'ApproximateNumberOfMessagesDelayed',
      ],
    })
  );
  return (
    Number(a.ApproximateNumberOfMessages ?? 0) +
    Number(a.ApproximateNumberOfMessagesNotVisible ?? 0) +
    Number(a.ApproximateNumberOfMessagesDelayed ?? 0)
  );
};

/**
 * Returns whether the key's dirty mark is set in the state table, i.e. an
 * add has sent a message that no sync has begun yet (white box: the
 * `q#<key>` item of DynamoWorkQueueStore).
 */
export const isMarkedDirty = async (
  stack: ServerlessStack,
  key: string
): Promise<boolean> => {
  const { Item } = await stack.table.client.send(
    new GetItemCommand({
      TableName: stack.table.tableName,
      Key: { pk: { S: `q#${key}` } },
      ConsistentRead: true,
    })
  );
  return Item?.dirty?.BOOL === true;
};
