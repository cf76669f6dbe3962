/**
 * What the commands of the cluster registry CLI run against: the registry,
 * the clusters, and the reconcilers' state in the table.
 */
import type {
  BridgeLeaseStore,
  ClusterHealthStore,
  ClusterRecord,
  ClusterRegistry,
  NodeIndexStore,
  OwnershipStore,
} from '../../ports/index.js';
import type { CheckConnection } from './check-types.js';

/** A registry the CLI can also write (DynamoClusterRegistry is one). */
export interface ClusterRegistryAdmin extends ClusterRegistry {
  put(record: ClusterRecord): Promise<void> | void;
  remove(id: string): Promise<void> | void;
}

/** What the commands run against, built once the table is known. */
export interface ClustersCliDeps {
  registry: ClusterRegistryAdmin;
  /** Opens a cluster as the deployed functions do (ClusterConnector). */
  connect(record: ClusterRecord): Promise<CheckConnection>;
  /** Returns the record's API server URL (from the file for kubeconfig). */
  serverOf(record: ClusterRecord): string;
  /** Returns a file's text (CA bundles, kubeconfig files). */
  readTextFile(file: string): string;
  /** Fences set by fight detection. */
  ownership: Pick<OwnershipStore, 'getFence' | 'clearFence'>;
  /** The clusters' breakers. */
  health: Pick<ClusterHealthStore, 'get'>;
  /** The bridges' leases: their state, and a resync after an unfence. */
  leases: Pick<BridgeLeaseStore, 'requestResync' | 'forget' | 'peek'>;
  /** The bridges' node indexes (a removed cluster's is deleted). */
  nodeIndex: Pick<NodeIndexStore, 'forget'>;
  /**
   * Asks EKS for a cluster's endpoint and CA (base64), as the operator (or
   * as `roleArn`): what `add --eks-cluster` registers when not given them.
   */
  describeEksCluster?(auth: {
    clusterName: string;
    region: string;
    roleArn?: string;
  }): Promise<{ endpoint: string; caData: string }>;
}

/** Returns a record as `-o json` shows it (no credential in it). */
export const recordSummary = (
  record: ClusterRecord,
  deps: Pick<ClustersCliDeps, 'serverOf'>
) => ({
  id: record.id,
  server: deps.serverOf(record),
  auth: record.auth,
  mode: record.bridgeMode,
  ownership: record.ownership,
});

/**
 * Forgets what the bridges and the fight guard kept of cluster `id` (its
 * lease with the bookmarks, its node index, and its fence), so that a cluster registered
 * under the id afterwards never resumes from another cluster's versions
 * nor starts fenced: `remove`, and `add --replace` by another cluster.
 */
export const forgetClusterState = async (
  id: string,
  deps: Pick<ClustersCliDeps, 'leases' | 'nodeIndex' | 'ownership'>
): Promise<void> => {
  await deps.leases.forget(id);
  await deps.nodeIndex.forget(id);
  await deps.ownership.clearFence(id);
};
