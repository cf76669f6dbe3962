/** REST paths of the objects the reconciler touches. */
const seg = encodeURIComponent;

export const paths = {
  daemonSet: (ns: string, name: string) =>
    `/apis/apps/v1/namespaces/${seg(ns)}/daemonsets/${seg(name)}`,
  daemonSetStatus: (ns: string, name: string) =>
    `/apis/apps/v1/namespaces/${seg(ns)}/daemonsets/${seg(name)}/status`,
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
export const collectionPaths = {
  daemonSets: '/apis/apps/v1/daemonsets',
  pods: '/api/v1/pods',
  nodes: '/api/v1/nodes',
  revisions: '/apis/apps/v1/controllerrevisions',
} as const;
