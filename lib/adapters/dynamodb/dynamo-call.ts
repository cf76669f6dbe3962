/**
 * What every DynamoDB state adapter shares: expression building, attribute
 * values, error translation, and conditional updates that treat an expired
 * item as absent (TTL deletion can lag by days).
 */
import {
  type AttributeValue,
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  DeleteItemCommand,
  type DynamoDBClient,
  type ReturnValue,
  UpdateItemCommand,
} from '@aws-sdk/client-dynamodb';
import type { Clock } from '../../ports/index.js';
import { sleep } from '../../sleep.js';
import { wrappingCalls } from '../aws/aws-call-error.js';
import {
  DynamoStateError,
  UnprocessedKeysError,
} from './dynamo-state-error.js';
import {
  PARTITION_KEY,
  TTL_ATTRIBUTE,
  toEpochSeconds,
} from './table-schema.js';

/** What every DynamoDB state adapter is built from. */
export interface DynamoStoreOptions {
  client: DynamoDBClient;
  /** The state table (see table-schema.ts). */
  tableName: string;
  /** The time every expiry is judged by. */
  clock: Clock;
}

/** A DynamoDB item as the low-level client returns it. */
export type Item = Record<string, AttributeValue>;

/** Returns a number attribute value. */
export const num = (n: number): AttributeValue => ({ N: String(n) });
/** Returns a string attribute value. */
export const str = (s: string): AttributeValue => ({ S: s });
/** Returns a boolean attribute value. */
export const bool = (b: boolean): AttributeValue => ({ BOOL: b });

/** Returns the number attribute `name`, or undefined when absent. */
export const readNumber = (
  item: Item | undefined,
  name: string
): number | undefined => {
  const raw = item?.[name]?.N;
  return raw === undefined ? undefined : Number(raw);
};

/** Returns the string attribute `name`, or undefined when absent. */
export const readString = (
  item: Item | undefined,
  name: string
): string | undefined => item?.[name]?.S;

/** Returns whether the item's `expiresAt` lies in the past at `nowMs`. */
export const isExpiredItem = (
  item: Item | undefined,
  nowMs: number
): boolean => {
  const expiresAt = readNumber(item, TTL_ATTRIBUTE);
  // expiresAt·1000 < now ⇔ expiresAt < ceil(now/1000) for whole seconds.
  return expiresAt !== undefined && expiresAt < toEpochSeconds(nowMs);
};

/**
 * The condition "the item is absent or has not expired"; needs `:nowS`
 * (`toEpochSeconds(now)`).
 */
export const IS_LIVE = `(attribute_not_exists(#${PARTITION_KEY}) OR #${TTL_ATTRIBUTE} >= :nowS)`;

/** The condition "the item exists and has expired"; needs `:nowS`. */
export const IS_EXPIRED = `#${TTL_ATTRIBUTE} < :nowS`;

/** The expression parts of one request. */
export interface Expression {
  update?: string;
  condition?: string;
  /** Values by placeholder (`:x`); those the expressions do not use are dropped. */
  values?: Record<string, AttributeValue>;
}

/**
 * Returns the request fields of an expression. Every `#name` placeholder
 * stands for the attribute `name`, and only the values the expressions use
 * are sent (DynamoDB rejects unused names and values).
 */
export const buildExpression = ({
  update,
  condition,
  values = {},
}: Expression) => {
  const text = `${update ?? ''} ${condition ?? ''}`;
  const names: Record<string, string> = {};
  for (const [placeholder, name] of text.matchAll(/#(\w+)/g)) {
    names[placeholder] = name as string;
  }
  const used: Record<string, AttributeValue> = {};
  for (const [placeholder] of text.matchAll(/:\w+/g)) {
    const value = values[placeholder];
    if (value === undefined) {
      throw new TypeError(`no value for ${placeholder} in "${text.trim()}"`);
    }
    used[placeholder] = value;
  }
  return {
    ...(update === undefined ? {} : { UpdateExpression: update }),
    ...(condition === undefined ? {} : { ConditionExpression: condition }),
    ...(Object.keys(names).length > 0
      ? { ExpressionAttributeNames: names }
      : {}),
    ...(Object.keys(used).length > 0
      ? { ExpressionAttributeValues: used }
      : {}),
  };
};

/** The outcome of a conditional write. */
export type ConditionalOutcome =
  | { ok: true; attributes: Item | undefined }
  | { ok: false; old: Item | undefined };

/**
 * Returns the result of `call`; any SDK error becomes a DynamoStateError
 * naming `operation`.
 */
export const callDynamo = wrappingCalls(DynamoStateError);

/**
 * Returns the outcome of a conditional write: `ok: false` with the old item
 * when the condition failed, a DynamoStateError for any other failure.
 */
export const conditionalWrite = async (
  operation: string,
  write: () => Promise<{ Attributes?: Item }>
): Promise<ConditionalOutcome> =>
  callDynamo(operation, async () => {
    try {
      return { ok: true, attributes: (await write()).Attributes };
    } catch (e) {
      if (e instanceof ConditionalCheckFailedException) {
        return { ok: false, old: e.Item };
      }
      throw e;
    }
  });

/** One UpdateItem on a live item (see `updateLiveItem`). */
export interface LiveUpdate extends Expression {
  client: DynamoDBClient;
  tableName: string;
  pk: string;
  nowMs: number;
  update: string;
  returnValues?: ReturnValue;
  /** For errors: what is being attempted. */
  operation: string;
}

/**
 * Returns the outcome of an UpdateItem that treats an expired item as absent.
 * The update runs only on an absent or live item (`IS_LIVE` AND `condition`);
 * when it fails on an expired item, the item is deleted (conditioned on it
 * still being expired, so a fresh write by someone else survives) and the
 * update is tried once more, so it never builds on stale attributes. The
 * extra delete and write happen only when TTL deletion lags.
 */
export const updateLiveItem = async (
  u: LiveUpdate
): Promise<ConditionalOutcome> => {
  const condition =
    u.condition === undefined ? IS_LIVE : `${IS_LIVE} AND (${u.condition})`;
  const values = { ...u.values, ':nowS': num(toEpochSeconds(u.nowMs)) };
  const key = { [PARTITION_KEY]: str(u.pk) };
  const attempt = () =>
    conditionalWrite(`${u.operation} ${u.pk}`, () =>
      u.client.send(
        new UpdateItemCommand({
          TableName: u.tableName,
          Key: key,
          ...buildExpression({ update: u.update, condition, values }),
          ReturnValues: u.returnValues ?? 'NONE',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        })
      )
    );
  const first = await attempt();
  if (first.ok || !isExpiredItem(first.old, u.nowMs)) return first;
  await conditionalWrite(`purge expired ${u.pk}`, () =>
    u.client.send(
      new DeleteItemCommand({
        TableName: u.tableName,
        Key: key,
        ...buildExpression({ condition: IS_EXPIRED, values }),
      })
    )
  );
  return attempt();
};

/** An update of one item that exists. */
export interface ExistingUpdate extends Expression {
  client: DynamoDBClient;
  tableName: string;
  pk: string;
  operation: string;
  update: string;
}

/**
 * Runs an update that only undoes state, on an existing item (a failed
 * condition means there was nothing to undo). Expired items need no
 * special case: undoing stale state leaves them as absent as before.
 */
export const updateExistingItem = async (u: ExistingUpdate): Promise<void> => {
  const exists = `attribute_exists(#${PARTITION_KEY})`;
  await conditionalWrite(`${u.operation} ${u.pk}`, () =>
    u.client.send(
      new UpdateItemCommand({
        TableName: u.tableName,
        Key: { [PARTITION_KEY]: str(u.pk) },
        ...buildExpression({
          update: u.update,
          condition:
            u.condition === undefined
              ? exists
              : `${exists} AND (${u.condition})`,
          ...(u.values === undefined ? {} : { values: u.values }),
        }),
      })
    )
  );
};

/**
 * Rounds of BatchGetItem that may leave keys unprocessed before a read
 * fails: DynamoDB leaves them when it throttles, and asking again at once
 * would only add to the load (AWS asks for exponential backoff).
 */
export const MAX_UNPROCESSED_ROUNDS = 5;
/** The backoff before the first ask again; it doubles each round. */
const UNPROCESSED_BACKOFF_MS = 50;

/**
 * Returns the items stored under `pks` (absent ones are missing from the
 * map), keyed by pk: BatchGetItem takes at most 100 keys a call and may
 * leave some unprocessed, which are asked for again after a backoff (full
 * jitter, doubling), at most MAX_UNPROCESSED_ROUNDS times; then the read
 * fails as throttled (UnprocessedKeysError). Errors are the caller's to
 * translate.
 */
export const batchGetItems = async (
  client: DynamoDBClient,
  tableName: string,
  pks: readonly string[],
  consistentRead: boolean,
  wait: (ms: number) => Promise<void> = sleep
): Promise<Map<string, Item>> => {
  const items = new Map<string, Item>();
  let pending = pks.map((pk) => ({ [PARTITION_KEY]: str(pk) }));
  let unprocessedRounds = 0;
  while (pending.length > 0) {
    const out = await client.send(
      new BatchGetItemCommand({
        RequestItems: {
          [tableName]: {
            Keys: pending.slice(0, 100),
            ConsistentRead: consistentRead,
          },
        },
      })
    );
    for (const item of out.Responses?.[tableName] ?? []) {
      items.set(item[PARTITION_KEY]?.S ?? '', item);
    }
    const unprocessed = (out.UnprocessedKeys?.[tableName]?.Keys ??
      []) as typeof pending;
    pending = [...unprocessed, ...pending.slice(100)];
    if (unprocessed.length === 0) continue;
    if (++unprocessedRounds >= MAX_UNPROCESSED_ROUNDS) {
      throw new UnprocessedKeysError(unprocessed.length, unprocessedRounds);
    }
    await wait(
      Math.random() * UNPROCESSED_BACKOFF_MS * 2 ** (unprocessedRounds - 1)
    );
  }
  return items;
};
