/**
 * The kinds of campaign run, and what each means for the objects made and
 * the ownership mode the cluster is registered with.
 */
import type { Ownership } from '#lib/ports/index.js';
import type { DaemonSetKind } from './checker/kube-objects.js';

/**
 * The kind a run's DaemonSets are: apps/v1, reconciled in the cluster's
 * `apps/v1` ownership mode; the own AdvancedDaemonSet, in the
 * `apps.dsr.dev/v1beta1` mode with Kruise's rollout controls; or apps/v1
 * OnDelete DaemonSets opted in with the `apps.dsr.dev/rollout` annotation,
 * in the `apps/v1+OnDelete` mode, where kube-controller-manager's own
 * DaemonSet controller runs beside the product and creates every pod.
 */
export type CampaignKind = DaemonSetKind | 'OnDelete';

/** Returns the object kind a run of `kind` creates and watches. */
export const objectKindOf = (kind: CampaignKind): DaemonSetKind =>
  kind === 'AdvancedDaemonSet' ? 'AdvancedDaemonSet' : 'DaemonSet';

/** Returns the ownership mode a cluster of `kind` is registered with. */
export const ownershipOf = (kind: CampaignKind): Ownership =>
  kind === 'AdvancedDaemonSet'
    ? 'apps.dsr.dev/v1beta1'
    : kind === 'OnDelete'
      ? 'apps/v1+OnDelete'
      : 'apps/v1';
