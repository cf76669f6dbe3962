/** The bridge lease item's attributes as the lease store's values. */
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { LeaseView, ResourceVersions } from '../../ports/index.js';
import { type Item, readNumber, readString, str } from './dynamo-call.js';
import { PARTITION_KEY } from './table-schema.js';

/** Returns the resourceVersions a lease item holds. */
export const toResourceVersions = (
  item: Item | undefined
): ResourceVersions => {
  const versions: Record<string, string> = {};
  for (const [resource, value] of Object.entries(
    item?.resourceVersions?.M ?? {}
  )) {
    if (value.S !== undefined) versions[resource] = value.S;
  }
  return versions;
};

/** Returns what the dispatcher reads of a lease item. */
export const toLeaseView = (item: Item): LeaseView => {
  const holder = readString(item, 'holder');
  const runUntilMs = readNumber(item, 'runUntilMs');
  const claimedAtMs = readNumber(item, 'claimedAtMs');
  const nodes = readNumber(item, 'nodes');
  const checkpointedAtMs = readNumber(item, 'checkpointedAtMs');
  const failures = readNumber(item, 'failures');
  return {
    ...(holder === undefined ? {} : { holder }),
    leaseUntilMs: readNumber(item, 'leaseUntilMs') ?? 0,
    ...(runUntilMs === undefined ? {} : { runUntilMs }),
    ...(claimedAtMs === undefined ? {} : { claimedAtMs }),
    ...(nodes === undefined ? {} : { size: { nodes } }),
    ...(checkpointedAtMs === undefined ? {} : { checkpointedAtMs }),
    ...(failures === undefined
      ? {}
      : {
          failures: {
            count: failures,
            lastAtMs: readNumber(item, 'lastFailureAtMs') ?? 0,
          },
        }),
  };
};

/** Returns resourceVersions as a DynamoDB map of strings. */
export const toMap = (versions: ResourceVersions): AttributeValue => ({
  M: Object.fromEntries(
    Object.entries(versions).map(([resource, rv]) => [resource, str(rv)])
  ),
});

/**
 * Returns the REMOVE clause of every attribute of `item` but its key and
 * `kept` (empty when there is none): what starts an expired lease item afresh
 * in place, for the dispatcher, whose role may not delete it.
 */
export const removeAllBut = (item: Item, kept: readonly string[]): string => {
  const names = Object.keys(item).filter(
    (n) => n !== PARTITION_KEY && !kept.includes(n)
  );
  return names.length === 0
    ? ''
    : ` REMOVE ${names.map((n) => `#${n}`).join(', ')}`;
};
