/**
 * RequestBudget on the state table: one token bucket per cluster
 * (`budget#<cluster>`), shared by every reconciler and bridge of that
 * cluster. Each container claims tokens in small chunks with an optimistic
 * conditional write (the bucket's time is the version), so most requests
 * cost no DynamoDB call; a container that ends leaves at most a chunk unused.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import { RequestBudgetExhaustedError } from '../../errors.js';
import {
  refill,
  type TokenBucket,
  takeTokens,
} from '../../policy/request-budget.js';
import type { ApiBudget, RequestBudget } from '../../ports/index.js';
import {
  buildExpression,
  callDynamo,
  conditionalWrite,
  type DynamoStoreOptions,
  num,
  readNumber,
  str,
} from './dynamo-call.js';
import { DynamoStore } from './dynamo-store.js';
import { PARTITION_KEY, toEpochSeconds } from './table-schema.js';

/** Tokens a container claims at once. */
const CHUNK = 5;
/**
 * The longest one request waits for a token: a busy cluster's sync then
 * fails and backs off instead of holding a reconciler asleep. Below the
 * reconcile handler's 15-s margin, so a call started just before a sync's
 * deadline still ends inside the function's timeout.
 */
export const MAX_BUDGET_WAIT_MS = 10_000;
/** An idle bucket is full again long before this; then it may expire. */
const BUCKET_TTL_MS = 60 * 60_000;

const realSleep = (ms: number) =>
  new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Per-cluster token buckets in DynamoDB, claimed in chunks. */
export class DynamoRequestBudget extends DynamoStore implements RequestBudget {
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #local = new Map<string, number>();
  readonly #claims = new Map<string, Promise<void>>();

  constructor(
    options: DynamoStoreOptions & { sleep?: (ms: number) => Promise<void> }
  ) {
    super(options);
    this.#sleep = options.sleep ?? realSleep;
  }

  async acquire(cluster: string, budget: ApiBudget): Promise<void> {
    const giveUpAtMs = this.clock.now() + MAX_BUDGET_WAIT_MS;
    for (;;) {
      const left = this.#local.get(cluster) ?? 0;
      if (left >= 1) {
        this.#local.set(cluster, left - 1);
        return;
      }
      // One claim per cluster at a time; the others wait for its tokens.
      let claim = this.#claims.get(cluster);
      if (claim === undefined) {
        claim = this.#claim(cluster, budget, giveUpAtMs).finally(() =>
          this.#claims.delete(cluster)
        );
        this.#claims.set(cluster, claim);
      }
      await claim;
    }
  }

  async #claim(
    cluster: string,
    budget: ApiBudget,
    giveUpAtMs: number
  ): Promise<void> {
    const key = { [PARTITION_KEY]: str(`budget#${cluster}`) };
    for (;;) {
      const { Item: item } = await callDynamo(`read budget ${cluster}`, () =>
        this.client.send(
          new GetItemCommand({
            TableName: this.tableName,
            Key: key,
            ConsistentRead: true,
          })
        )
      );
      const stored = readNumber(item, 'atMs');
      const old: TokenBucket | undefined =
        stored === undefined
          ? undefined
          : { tokens: readNumber(item, 'tokens') ?? 0, atMs: stored };
      const now = this.clock.now();
      const bucket = refill(old, now, budget);
      const { taken, waitMs } = takeTokens(bucket, CHUNK, budget);
      if (taken === 0) {
        if (now + waitMs > giveUpAtMs) {
          throw new RequestBudgetExhaustedError(cluster, waitMs);
        }
        await this.#sleep(waitMs);
        continue;
      }
      const written = await conditionalWrite(`claim budget ${cluster}`, () =>
        this.client.send(
          new PutItemCommand({
            TableName: this.tableName,
            Item: {
              ...key,
              tokens: num(bucket.tokens - taken),
              atMs: num(bucket.atMs),
              expiresAt: num(toEpochSeconds(now + BUCKET_TTL_MS)),
            },
            ...buildExpression({
              condition:
                stored === undefined
                  ? 'attribute_not_exists(#pk)'
                  : '#atMs = :oldAtMs',
              values: stored === undefined ? {} : { ':oldAtMs': num(stored) },
            }),
          })
        )
      );
      if (written.ok) {
        this.#local.set(cluster, (this.#local.get(cluster) ?? 0) + taken);
        return;
      }
      // Another container claimed meanwhile: read again.
    }
  }
}
