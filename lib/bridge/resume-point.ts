/**
 * Where one bridge run of a cluster resumes each watch: from the versions
 * the last run stored, or — where they are missing or cannot be trusted —
 * from a relist or the current version, with what that costs (every
 * DaemonSet queued, expectations dropped) decided here; and what a
 * checkpoint stores for the next run to resume from.
 */
import type { NodeIndexStore, WatchedResource } from '../ports/index.js';
import type { ClusterEvents } from './cluster-events.js';

/** The stored version naming the node version of the saved index. */
export const INDEX_AT = 'nodeIndexAt';

/** Where a run resumes, and whether it must queue every DaemonSet. */
export interface ResumePoint {
  versions: Record<WatchedResource, string>;
  /** No version was stored: the cluster's first run. */
  firstRun: boolean;
  /** The stored index covers another node version than the versions. */
  indexBehind: boolean;
  /** The node version the loaded index covers (undefined: none recorded). */
  indexAt: string | undefined;
}

/**
 * Lists the DaemonSets, loads the node index into `events`, and returns
 * where each watch resumes from the versions `stored` of the last run.
 */
export const resumePoint = async (
  events: ClusterEvents,
  nodeIndex: Pick<NodeIndexStore, 'load'>,
  cluster: string,
  stored: Readonly<Record<string, string>>
): Promise<ResumePoint> => {
  const listedVersion = await events.relistDaemonSets();
  const index = await nodeIndex.load(cluster);
  events.nodeIndex.use(index.nodes);
  const firstRun = stored.daemonSets === undefined;
  // A head at another node version than the versions name: that save
  // failed after they landed, and the index lacks changes whose wake-ups
  // went out (a change back would look like none). Relist, queue all.
  const indexBehind =
    !firstRun &&
    stored[INDEX_AT] !== undefined &&
    stored[INDEX_AT] !== index.resourceVersion;
  const hasIndex =
    stored.nodes !== undefined && events.nodeIndex.size > 0 && !indexBehind;
  const versions: Record<WatchedResource, string> = {
    daemonSets: stored.daemonSets ?? listedVersion,
    // Without a stored version the events since the last run are lost,
    // and with them the lowering of its syncs' expectations (a rollout
    // would hold until they expired).
    pods: stored.pods ?? (await events.resumePodsWithoutHistory()),
    revisions: stored.revisions ?? (await events.currentVersion('revisions')),
    nodes: hasIndex
      ? (stored.nodes ?? '')
      : await events.relistNodes(!firstRun && !indexBehind),
  };
  return { versions, firstRun, indexBehind, indexAt: index.resourceVersion };
};

/**
 * Returns the versions a checkpoint stores: each watch's processed
 * resourceVersion, the last resync, and the node version of the index
 * beside them — the nodes' own when this checkpoint saves the index, else
 * `keptIndexAt`, the one the stored index covers (none if unknown).
 */
export const checkpointVersions = (
  watches: Readonly<Record<string, { resourceVersion: string }>>,
  lastResyncMs: number,
  savesIndex: boolean,
  keptIndexAt: string | undefined
): Record<string, string> => {
  const versions: Record<string, string> = {
    resyncAtMs: String(lastResyncMs),
  };
  for (const [r, w] of Object.entries(watches)) versions[r] = w.resourceVersion;
  const indexAt = savesIndex ? (versions.nodes ?? '') : keptIndexAt;
  if (indexAt !== undefined) versions[INDEX_AT] = indexAt;
  return versions;
};
