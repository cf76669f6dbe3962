/**
 * ClusterRegistry on the state table: one item per cluster,
 * `pk = cluster#<id>`, `kind = 'cluster'`, the record's fields as attributes
 * (`auth` as a map), so an operator can read and edit them in the console.
 * Records are validated on the way in and on the way out.
 *
 * `list` queries the sparse `registry` GSI for `kind = 'cluster'` (fleet
 * rollout records carry a kind of their own): it reads the records and
 * nothing else, however many leases, marks and node-index shards the table
 * holds. The GSI is eventually
 * consistent: a record put a moment ago may be listed a second later.
 */
import {
  type AttributeValue,
  DeleteItemCommand,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
} from '@aws-sdk/client-dynamodb';
import {
  InvalidClusterRecordError,
  parseClusterRecord,
} from '../../cluster/record.js';
import { toError } from '../../errors.js';
import type {
  ClusterListing,
  ClusterRecord,
  ClusterRegistry,
  InvalidClusterRecord,
} from '../../ports/index.js';
import {
  callDynamo,
  type DynamoStoreOptions,
  type Item,
  num,
  str,
} from './dynamo-call.js';
import { DynamoStore } from './dynamo-store.js';
import {
  KeyPrefix,
  KIND_ATTRIBUTE,
  PARTITION_KEY,
  partitionKey,
  REGISTRY_INDEX,
} from './table-schema.js';

const CLUSTER_KIND = 'cluster';

/**
 * How long `get` answers from memory: registry changes are rare, and a
 * reconcile Lambda looks its cluster up for every message.
 */
export const CLUSTER_CACHE_TTL_MS = 60_000;

/** Returns a plain value as an attribute value (strings and maps only). */
const marshal = (v: unknown): AttributeValue => {
  if (typeof v === 'string') return str(v);
  if (typeof v === 'number') return num(v);
  const entries = Object.entries(v as Record<string, unknown>).filter(
    ([, x]) => x !== undefined
  );
  return { M: Object.fromEntries(entries.map(([k, x]) => [k, marshal(x)])) };
};

/**
 * Returns an attribute value as a plain value; types a record never holds
 * come back as a marker that validation names as the bad field.
 */
const unmarshal = (v: AttributeValue): unknown => {
  if (v.S !== undefined) return v.S;
  if (v.N !== undefined) return Number(v.N);
  if (v.M !== undefined) {
    return Object.fromEntries(
      Object.entries(v.M).map(([k, x]) => [k, unmarshal(x)])
    );
  }
  return { unsupportedAttributeType: Object.keys(v)[0] };
};

/** Returns the record an item holds; throws naming the bad field. */
const recordFromItem = (item: Item): ClusterRecord => {
  const { [PARTITION_KEY]: pk, [KIND_ATTRIBUTE]: _kind, ...fields } = item;
  const raw = Object.fromEntries(
    Object.entries(fields).map(([k, v]) => [k, unmarshal(v)])
  );
  const record = parseClusterRecord(raw);
  if (pk?.S !== partitionKey(KeyPrefix.cluster, record.id)) {
    throw new InvalidClusterRecordError(record.id, [
      { field: 'id', problem: `does not match the item's key ${pk?.S}` },
    ]);
  }
  return record;
};

/** Registered clusters in DynamoDB, with `get` answers kept for 60 s. */
export class DynamoClusterRegistry
  extends DynamoStore
  implements ClusterRegistry
{
  readonly #cacheTtlMs: number;
  readonly #cache = new Map<
    string,
    { record: ClusterRecord | undefined; atMs: number }
  >();

  constructor({
    cacheTtlMs = CLUSTER_CACHE_TTL_MS,
    ...table
  }: DynamoStoreOptions & { cacheTtlMs?: number }) {
    super(table);
    this.#cacheTtlMs = cacheTtlMs;
  }

  /**
   * Returns the record of cluster `id`, or undefined when none is
   * registered; both answers are kept for the cache TTL. A stored record
   * that breaks the rules throws InvalidClusterRecordError.
   */
  async get(id: string): Promise<ClusterRecord | undefined> {
    const now = this.clock.now();
    const hit = this.#cache.get(id);
    if (hit && now - hit.atMs < this.#cacheTtlMs) {
      return hit.record && structuredClone(hit.record);
    }
    const pk = partitionKey(KeyPrefix.cluster, id);
    const { Item: item } = await callDynamo(`get cluster ${pk}`, () =>
      this.client.send(
        new GetItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(pk) },
        })
      )
    );
    const record = item ? recordFromItem(item) : undefined;
    this.#cache.set(id, { record, atMs: now });
    return record && structuredClone(record);
  }

  /**
   * Returns every registered cluster, sorted by id (read now, not from the
   * cache), and every item that is not a valid record, with why: one bad
   * item (edited in the console, written by a newer CLI) is skipped, never
   * fatal to the others.
   */
  async list(): Promise<ClusterListing> {
    const now = this.clock.now();
    const records: ClusterRecord[] = [];
    const invalid: InvalidClusterRecord[] = [];
    let start: Item | undefined;
    do {
      const page = await callDynamo('query clusters', () =>
        this.client.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: REGISTRY_INDEX,
            KeyConditionExpression: '#kind = :kind',
            ExpressionAttributeNames: { '#kind': KIND_ATTRIBUTE },
            ExpressionAttributeValues: { ':kind': str(CLUSTER_KIND) },
            ExclusiveStartKey: start,
          })
        )
      );
      for (const item of page.Items ?? []) {
        try {
          records.push(recordFromItem(item));
        } catch (e) {
          invalid.push({
            key: item[PARTITION_KEY]?.S ?? '?',
            error: toError(e).message,
          });
        }
      }
      start = page.LastEvaluatedKey;
    } while (start !== undefined);
    for (const r of records) this.#cache.set(r.id, { record: r, atMs: now });
    return {
      records: records
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map((r) => structuredClone(r)),
      invalid: invalid.sort((a, b) => (a.key < b.key ? -1 : 1)),
    };
  }

  /** Adds or replaces a record after validating it. */
  async put(record: ClusterRecord): Promise<void> {
    const valid = parseClusterRecord(record);
    const pk = partitionKey(KeyPrefix.cluster, valid.id);
    const item: Item = {
      [PARTITION_KEY]: str(pk),
      [KIND_ATTRIBUTE]: str(CLUSTER_KIND),
      ...(marshal(valid).M as Item),
    };
    await callDynamo(`put cluster ${pk}`, () =>
      this.client.send(
        new PutItemCommand({ TableName: this.tableName, Item: item })
      )
    );
    this.#cache.set(valid.id, { record: valid, atMs: this.clock.now() });
  }

  /** Removes a record; removing an unknown id does nothing. */
  async remove(id: string): Promise<void> {
    const pk = partitionKey(KeyPrefix.cluster, id);
    await callDynamo(`delete cluster ${pk}`, () =>
      this.client.send(
        new DeleteItemCommand({
          TableName: this.tableName,
          Key: { [PARTITION_KEY]: str(pk) },
        })
      )
    );
    this.#cache.delete(id);
  }
}
