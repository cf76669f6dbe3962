/**
 * Ports the decisions of ControllerRevision history in
 * pkg/controller/daemon/update.go: `snapshot`'s object, `dedupCurHistories`'
 * choice of the revision to keep, and `cleanupHistory`'s choice of revisions
 * to delete.
 *
 * Invariants: the kept duplicate has the highest revision (last wins on a
 * tie); cleanup deletes oldest first and never a revision whose hash a live
 * pod still carries; the current revision is never in `old`.
 */

import { newControllerRef } from './k8s/controller-ref.js';
import { labelOf, nameOf } from './k8s/meta.js';
import type { ControllerRevision, DaemonSet, Pod } from './k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from './k8s/types.js';
import { getPatch } from './revision-hash.js';

/** API default of `spec.revisionHistoryLimit`. */
export const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/** Returns the revision object upstream's `snapshot` creates. */
export const newControllerRevision = (
  ds: DaemonSet,
  hash: string,
  revision: number
): ControllerRevision => ({
  apiVersion: 'apps/v1',
  kind: 'ControllerRevision',
  metadata: {
    name: `${ds.metadata?.name}-${hash}`,
    namespace: ds.metadata?.namespace,
    labels: {
      ...ds.spec?.template.metadata?.labels,
      [CONTROLLER_REVISION_HASH_LABEL]: hash,
    },
    ...(ds.metadata?.annotations
      ? { annotations: { ...ds.metadata.annotations } }
      : {}),
    ownerReferences: [newControllerRef(ds)],
  },
  data: JSON.parse(getPatch(ds)),
  revision,
});

/** Returns the duplicate current revision to keep (highest revision). */
export const pickRevisionToKeep = (
  current: readonly ControllerRevision[]
): ControllerRevision | undefined => {
  let keep: ControllerRevision | undefined;
  for (const r of current) {
    if (keep === undefined || r.revision >= keep.revision) {
      keep = r;
    }
  }
  return keep;
};

/**
 * Returns the names of old revisions to delete so at most
 * `revisionHistoryLimit` remain, oldest first, sparing revisions live pods
 * still carry (`pods` includes deleted terminal pods, as upstream).
 */
export const planCleanupHistory = (
  ds: DaemonSet,
  old: readonly ControllerRevision[],
  pods: readonly Pod[]
): string[] => {
  const limit = ds.spec?.revisionHistoryLimit ?? DEFAULT_REVISION_HISTORY_LIMIT;
  let toKill = old.length - limit;
  if (toKill <= 0) return [];
  const liveHashes = new Set(
    pods
      .map((p) => labelOf(p, CONTROLLER_REVISION_HASH_LABEL))
      .filter((h) => h !== '')
  );
  const names: string[] = [];
  const byRevision = [...old].sort((a, b) => a.revision - b.revision);
  for (const r of byRevision) {
    if (toKill <= 0) break;
    if (liveHashes.has(labelOf(r, CONTROLLER_REVISION_HASH_LABEL))) continue;
    names.push(nameOf(r));
    toKill--;
  }
  return names;
};
