/** REST paths of the objects the reconciler touches. */
import type { DaemonSetKind } from '../../reconcile/k8s/daemon-set-kind.js';

const seg = encodeURIComponent;

/** Returns the collection path of a DaemonSet kind, in one namespace or all. */
const daemonSets = (kind: DaemonSetKind, ns?: string) =>
  `/apis/${kind.group}/${kind.version}${ns === undefined ? '' : `/namespaces/${seg(ns)}`}/${kind.resource}`;

export const paths = {
  /** The discovery document of a kind's group and version. */
  groupVersion: (kind: DaemonSetKind) => `/apis/${kind.group}/${kind.version}`,
  /** A kind's DaemonSets in one namespace, or in all. */
  daemonSets,
  daemonSet: (kind: DaemonSetKind, ns: string, name: string) =>
    `${daemonSets(kind, ns)}/${seg(name)}`,
  daemonSetStatus: (kind: DaemonSetKind, ns: string, name: string) =>
    `${daemonSets(kind, ns)}/${seg(name)}/status`,
  nodes: () => '/api/v1/nodes',
  pods: (ns: string) => `/api/v1/namespaces/${seg(ns)}/pods`,
  pod: (ns: string, name: string) =>
    `/api/v1/namespaces/${seg(ns)}/pods/${seg(name)}`,
  revisions: (ns: string) =>
    `/apis/apps/v1/namespaces/${seg(ns)}/controllerrevisions`,
  revision: (ns: string, name: string) =>
    `/apis/apps/v1/namespaces/${seg(ns)}/controllerrevisions/${seg(name)}`,
  events: (ns: string) => `/api/v1/namespaces/${seg(ns)}/events`,
};

/** The cluster-wide collections the bridge lists and watches. */
export const collectionPaths = (kind: DaemonSetKind) =>
  ({
    daemonSets: daemonSets(kind),
    pods: '/api/v1/pods',
    nodes: '/api/v1/nodes',
    revisions: '/apis/apps/v1/controllerrevisions',
  }) as const;
