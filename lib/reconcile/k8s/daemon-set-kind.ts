/**
 * The two kinds of DaemonSet the reconciler can own, one per cluster: the
 * native apps/v1 DaemonSet (clusters whose own DaemonSet controller is off)
 * and the product's AdvancedDaemonSet (apps.dsr.dev), which managed
 * clusters' controllers never touch. Everything kind-specific — REST paths,
 * owner references, which status fields exist — is read from here.
 */
import type { DaemonSet } from './types.js';

/** How one DaemonSet kind is named on the API server. */
export interface DaemonSetKind {
  apiVersion: string;
  kind: string;
  group: string;
  version: string;
  /** The plural resource name in REST paths and RBAC rules. */
  resource: string;
}

/** apps/v1 DaemonSet. */
export const NATIVE_DAEMON_SET: DaemonSetKind = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  group: 'apps',
  version: 'v1',
  resource: 'daemonsets',
};

/** The own kind (infra/kubernetes/advanced-daemonset-crd.yaml). */
export const ADVANCED_DAEMON_SET: DaemonSetKind = {
  apiVersion: 'apps.dsr.dev/v1beta1',
  kind: 'AdvancedDaemonSet',
  group: 'apps.dsr.dev',
  version: 'v1beta1',
  resource: 'advanceddaemonsets',
};

/**
 * OpenKruise's Advanced DaemonSet, a source the kubectl plugin migrates
 * from (its manager stopped); never reconciled here.
 */
export const KRUISE_DAEMON_SET: DaemonSetKind = {
  apiVersion: 'apps.kruise.io/v1beta1',
  kind: 'DaemonSet',
  group: 'apps.kruise.io',
  version: 'v1beta1',
  resource: 'daemonsets',
};

/**
 * Returns the kind a cluster's ownership mode reconciles: a record's
 * `ownership` is the apiVersion of the kind it owns (`apps/v1+OnDelete`
 * rolls out native DaemonSets).
 */
export const ownedKind = (ownership: string): DaemonSetKind =>
  ownership === ADVANCED_DAEMON_SET.apiVersion
    ? ADVANCED_DAEMON_SET
    : NATIVE_DAEMON_SET;

/** Returns the DaemonSet's kind (apps/v1 unless it says otherwise). */
export const kindOf = (ds: DaemonSet): DaemonSetKind =>
  ds.kind === ADVANCED_DAEMON_SET.kind
    ? ADVANCED_DAEMON_SET
    : NATIVE_DAEMON_SET;
