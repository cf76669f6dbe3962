/**
 * The one DynamoDB table that holds the reconciler's state, defined once: the
 * adapters, the test helper that creates tables and the infrastructure
 * template all take its shape from here.
 *
 * Items are told apart by the prefix of their partition key. Work-queue keys
 * contain '/', so '#' separates the prefix from the key.
 */
import type {
  CreateTableCommandInput,
  UpdateTimeToLiveCommandInput,
} from '@aws-sdk/client-dynamodb';

/** The partition key attribute (string); the table has no sort key. */
export const PARTITION_KEY = 'pk';

/**
 * The TTL attribute: epoch SECONDS (DynamoDB's TTL unit). TTL deletion can lag
 * by days, so every reader also treats a past `expiresAt` as absent.
 */
export const TTL_ATTRIBUTE = 'expiresAt';

/** On-demand capacity: the reconciler is idle most of the time. */
export const BILLING_MODE = 'PAY_PER_REQUEST';

/** The partition-key prefix of each item kind. */
export const KeyPrefix = {
  /** `exp#<cluster/ns/name>`: ControllerExpectations record. */
  expectations: 'exp#',
  /** `fpb#<cluster/dsUID/generation/node>`: failed-pod backoff entry. */
  failedPodBackoff: 'fpb#',
  /** `q#<cluster/ns/name>`: work-queue marks and ledger. */
  workQueue: 'q#',
  /** `lease#<cluster>`: the cluster's bridge lease and bookmarks. */
  lease: 'lease#',
  /** `cluster#<id>`: the cluster registry. */
  cluster: 'cluster#',
  /** `fleet#<policy name>`: a fleet rollout's policy, state and controls. */
  fleet: 'fleet#',
  /** `fleetm#<cluster/ns/name>`: one DaemonSet a fleet rollout covers. */
  fleetMember: 'fleetm#',
} as const;
export type KeyPrefix = (typeof KeyPrefix)[keyof typeof KeyPrefix];

/** Returns the partition key of an item of the given kind. */
export const partitionKey = (prefix: KeyPrefix, id: string): string =>
  `${prefix}${id}`;

/**
 * The registry's index: a sparse GSI keyed by `kind`, which only cluster
 * records (`cluster`) and fleet rollout records (`fleet-rollout`) carry, so
 * the dispatcher lists the registry, and the fleet its rollouts, with one
 * Query each that reads nothing else (a Scan reads every lease, mark and
 * node-index shard).
 */
export const REGISTRY_INDEX = 'registry';
/** The attribute that tells registry items from state items (the GSI key). */
export const KIND_ATTRIBUTE = 'kind';

/** Returns the CreateTable request of the state table. */
export const createTableInput = (
  tableName: string
): CreateTableCommandInput => ({
  TableName: tableName,
  BillingMode: BILLING_MODE,
  AttributeDefinitions: [
    { AttributeName: PARTITION_KEY, AttributeType: 'S' },
    { AttributeName: KIND_ATTRIBUTE, AttributeType: 'S' },
  ],
  KeySchema: [{ AttributeName: PARTITION_KEY, KeyType: 'HASH' }],
  GlobalSecondaryIndexes: [
    {
      IndexName: REGISTRY_INDEX,
      KeySchema: [{ AttributeName: KIND_ATTRIBUTE, KeyType: 'HASH' }],
      Projection: { ProjectionType: 'ALL' },
    },
  ],
});

/** Returns the UpdateTimeToLive request that enables TTL on `expiresAt`. */
export const timeToLiveInput = (
  tableName: string
): UpdateTimeToLiveCommandInput => ({
  TableName: tableName,
  TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
});

/** Returns `ms` (epoch milliseconds) as TTL epoch seconds, rounded up. */
export const toEpochSeconds = (ms: number): number => Math.ceil(ms / 1_000);
