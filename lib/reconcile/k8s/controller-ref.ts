/**
 * Ports the ownership decisions of `BaseControllerRefManager.ClaimObject`
 * (pkg/controller/controller_ref_manager.go) and the patches upstream sends to
 * adopt (`ownerRefControllerPatch`) and release
 * (`GenerateDeleteOwnerRefStrategicMergeBytes`) an object, plus
 * `metav1.NewControllerRef`.
 *
 * Invariants: an object controlled by someone else is never touched; an
 * orphan is adopted only if the owner is alive, the selector matches, the
 * object is not being deleted and lives in the owner's namespace.
 */
import { kindOf } from './daemon-set-kind.js';
import { isDeleting } from './meta.js';
import type { DaemonSet, KubeObject, OwnerReference } from './types.js';

/** What a claim does with one object. */
export type ClaimDecision = 'claim' | 'ignore' | 'adopt' | 'release';

/** Returns the object's controller reference, if any (`GetControllerOf`). */
export const getControllerOf = (obj: KubeObject): OwnerReference | undefined =>
  obj.metadata?.ownerReferences?.find((ref) => ref.controller === true);

/** Returns whether `obj` is controlled by the DaemonSet (`IsControlledBy`). */
export const isControlledBy = (obj: KubeObject, ds: DaemonSet): boolean =>
  getControllerOf(obj)?.uid === ds.metadata?.uid;

/**
 * Returns what `ClaimObject` would do with `obj` for the DaemonSet, given
 * whether the DaemonSet's selector matches the object's labels.
 */
export const claimDecision = (
  ds: DaemonSet,
  obj: KubeObject,
  selectorMatches: boolean
): ClaimDecision => {
  const controllerRef = getControllerOf(obj);
  if (controllerRef !== undefined) {
    if (controllerRef.uid !== ds.metadata?.uid) return 'ignore';
    if (selectorMatches) return 'claim';
    return isDeleting(ds) ? 'ignore' : 'release';
  }
  if (isDeleting(ds) || !selectorMatches || isDeleting(obj)) return 'ignore';
  const namespace = ds.metadata?.namespace ?? '';
  if (namespace !== '' && namespace !== obj.metadata?.namespace) {
    return 'ignore';
  }
  return 'adopt';
};

/** Returns the controller reference pods and revisions carry. */
export const newControllerRef = (ds: DaemonSet): OwnerReference => ({
  apiVersion: kindOf(ds).apiVersion,
  kind: kindOf(ds).kind,
  name: ds.metadata?.name ?? '',
  uid: ds.metadata?.uid ?? '',
  controller: true,
  blockOwnerDeletion: true,
});

/** Returns upstream's strategic-merge patch that adopts `objUid`. */
export const adoptPatch = (ds: DaemonSet, objUid: string): string =>
  JSON.stringify({
    metadata: { ownerReferences: [newControllerRef(ds)], uid: objUid },
  });

/** Returns upstream's strategic-merge patch that releases `objUid`. */
export const releasePatch = (ds: DaemonSet, objUid: string): string =>
  JSON.stringify({
    metadata: {
      uid: objUid,
      ownerReferences: [{ $patch: 'delete', uid: ds.metadata?.uid ?? '' }],
    },
  });
