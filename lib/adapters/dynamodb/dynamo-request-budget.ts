/**
 * RequestBudget on the state table: one item per cluster
 * (`budget#<cluster>`) holding its token bucket and adaptive rate, shared by
 * every reconciler and bridge of that cluster (shared-request-budget.ts
 * claims and folds; this file reads and writes the item). Each write is
 * conditioned on the version read (`v`, bumped by every write), so two
 * containers never both spend the same tokens or lose each other's signals.
 */
import { GetItemCommand, PutItemCommand } from '@aws-sdk/client-dynamodb';
import type { BudgetState } from '../../policy/request-budget.js';
import {
  type BudgetStateStore,
  SharedRequestBudget,
} from '../shared-request-budget.js';
import {
  buildExpression,
  callDynamo,
  conditionalWrite,
  type DynamoStoreOptions,
  type Expression,
  type Item,
  isExpiredItem,
  num,
  readNumber,
  str,
} from './dynamo-call.js';
import { DynamoStore } from './dynamo-store.js';
import { PARTITION_KEY, toEpochSeconds } from './table-schema.js';

/**
 * An idle bucket is full again long before this; then it may expire, and
 * a cluster idle that long starts over at the initial rate (TCP restarts
 * slow start after an idle period, RFC 5681 §4.1).
 */
const BUCKET_TTL_MS = 60 * 60_000;

/** The number fields of a stored budget, by attribute name. */
const REQUIRED = [
  'tokens',
  'atMs',
  'rateQps',
  'thresholdQps',
  'intervalStartMs',
  'granted',
  'cutAtMs',
] as const;
const OPTIONAL = ['baselineMs', 'baselineAtMs'] as const;

/** Returns the state an item holds; none for one of the fixed budget's. */
const stateOf = (item: Item): BudgetState | undefined => {
  const fields: Partial<Record<keyof BudgetState, number>> = {};
  for (const name of [...REQUIRED, ...OPTIONAL]) {
    const value = readNumber(item, name);
    if (value !== undefined) fields[name] = value;
  }
  return REQUIRED.every((name) => fields[name] !== undefined)
    ? (fields as BudgetState)
    : undefined;
};

/** The item a write must find: absent, or as read. */
type Version = Item | undefined;

/** The budget items of the state table. */
class DynamoBudgetItems
  extends DynamoStore
  implements BudgetStateStore<Version>
{
  async read(
    cluster: string
  ): Promise<{ state?: BudgetState; version: Version }> {
    const { Item: item } = await callDynamo(`read budget ${cluster}`, () =>
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(`budget#${cluster}`) },
          ConsistentRead: true,
        })
      )
    );
    if (item === undefined || isExpiredItem(item, this.clock.now())) {
      return { version: item };
    }
    const state = stateOf(item);
    return state === undefined ? { version: item } : { state, version: item };
  }

  async write(
    cluster: string,
    state: BudgetState,
    version: Version
  ): Promise<boolean> {
    const fields: Item = {};
    for (const name of [...REQUIRED, ...OPTIONAL]) {
      const value = state[name];
      if (value !== undefined) fields[name] = num(value);
    }
    const v = readNumber(version, 'v');
    const written = await conditionalWrite(`claim budget ${cluster}`, () =>
      this.client.send(
        new PutItemCommand({
          TableName: this.tableName,
          Item: {
            [PARTITION_KEY]: str(`budget#${cluster}`),
            ...fields,
            v: num((v ?? 0) + 1),
            expiresAt: num(toEpochSeconds(this.clock.now() + BUCKET_TTL_MS)),
          },
          ...buildExpression(conditionOn(version, v)),
        })
      )
    );
    return written.ok;
  }
}

/**
 * Returns the condition "the item is still as read": absent, at its
 * version, or — an item of the fixed budget, which had none — at its time.
 */
const conditionOn = (version: Version, v: number | undefined): Expression => {
  if (version === undefined) {
    return { condition: `attribute_not_exists(#${PARTITION_KEY})` };
  }
  if (v !== undefined) {
    return { condition: '#v = :v', values: { ':v': num(v) } };
  }
  const atMs = readNumber(version, 'atMs');
  return atMs === undefined
    ? { condition: 'attribute_not_exists(#v) AND attribute_not_exists(#atMs)' }
    : {
        condition: 'attribute_not_exists(#v) AND #atMs = :atMs',
        values: { ':atMs': num(atMs) },
      };
};

/** Per-cluster adaptive token buckets in DynamoDB, claimed in chunks. */
export class DynamoRequestBudget extends SharedRequestBudget<Version> {
  constructor(
    options: DynamoStoreOptions & { sleep?: (ms: number) => Promise<void> }
  ) {
    super({
      store: new DynamoBudgetItems(options),
      clock: options.clock,
      ...(options.sleep ? { sleep: options.sleep } : {}),
    });
  }
}
