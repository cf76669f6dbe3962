/**
 * The ports of the kubectl plugin: the own kind's objects as its rollout
 * verbs read and change them, and what `migrate` needs to move a DaemonSet
 * between kinds. Errors are KubeApiErrors.
 */
import type { DaemonSetKind } from '../reconcile/k8s/daemon-set-kind.js';
import type {
  ControllerRevision,
  DaemonSet,
  LabelSelector,
  Pod,
} from '../reconcile/k8s/types.js';
import type { ListSnapshot, WatchEvent } from './bridge.js';

/** How a write is sent. */
export interface WriteOptions {
  /** Sends `dryRun=All`: admission and validation run, nothing is stored. */
  dryRun?: boolean;
}

/** Where a watch of the own kind starts, and what it watches. */
export interface WatchFrom {
  resourceVersion: string;
  /** A label selector. */
  selector?: string;
  /** One object's name. */
  name?: string;
  /** Ends the watch. */
  signal?: AbortSignal;
}

/**
 * The own kind's objects as the kubectl plugin reads and changes them.
 * Errors are KubeApiErrors (NotFound when the object is missing).
 */
export interface AdvancedDaemonSets {
  get(namespace: string, name: string): Promise<DaemonSet>;
  /** Lists the objects of `namespace` (undefined: all) a label selector matches. */
  list(namespace: string | undefined, selector?: string): Promise<DaemonSet[]>;
  /** Lists as `list` does, with the resourceVersion to watch from. */
  listWithVersion(
    namespace: string | undefined,
    selector?: string
  ): Promise<ListSnapshot<DaemonSet>>;
  /**
   * Streams the changes after `resourceVersion` (one object when `name` is
   * given) until `signal` aborts; errors are KubeApiErrors (410 ⇒ Gone).
   */
  watch(
    namespace: string | undefined,
    from: WatchFrom
  ): AsyncIterable<WatchEvent<DaemonSet>>;
  /** Applies a JSON patch (RFC 6902) to the object. */
  jsonPatch(
    namespace: string,
    name: string,
    ops: readonly object[],
    options?: WriteOptions
  ): Promise<DaemonSet>;
  /** Applies a JSON merge patch to the object. */
  patch(
    namespace: string,
    name: string,
    patch: object,
    options?: WriteOptions
  ): Promise<DaemonSet>;
  /** Replaces the object's pod template (a JSON patch). */
  replaceTemplate(
    namespace: string,
    name: string,
    template: unknown,
    options?: WriteOptions
  ): Promise<DaemonSet>;
  /** Returns the ControllerRevisions the object controls. */
  revisions(ds: DaemonSet): Promise<ControllerRevision[]>;
  /** Returns the live pods the object controls. */
  pods(ds: DaemonSet): Promise<Pod[]>;
}

/** The pods and ControllerRevisions a selector matches. */
export interface Dependents {
  pods: Pod[];
  revisions: ControllerRevision[];
}

/**
 * What moving a DaemonSet between kinds needs (the plugin's `migrate`), for
 * any DaemonSet kind. Errors are KubeApiErrors.
 */
export interface DaemonSetMigrationApi {
  /** Returns whether the server serves `kind` (discovery; a CRD installed). */
  serves(kind: DaemonSetKind): Promise<boolean>;
  /** Returns the object, or undefined when it does not exist. */
  find(
    kind: DaemonSetKind,
    namespace: string,
    name: string
  ): Promise<DaemonSet | undefined>;
  create(
    kind: DaemonSetKind,
    namespace: string,
    obj: DaemonSet,
    options?: WriteOptions
  ): Promise<DaemonSet>;
  /** Applies a JSON merge patch to the DaemonSet. */
  patchDaemonSet(
    kind: DaemonSetKind,
    namespace: string,
    name: string,
    patch: object,
    options?: WriteOptions
  ): Promise<DaemonSet>;
  /** Deletes the object, orphaning its pods and revisions (precondition: uid). */
  deleteOrphaning(
    kind: DaemonSetKind,
    namespace: string,
    name: string,
    uid: string,
    options?: WriteOptions
  ): Promise<void>;
  /** Removes the ownerReference to `owner` from a pod or revision. */
  release(
    what: 'pod' | 'revision',
    namespace: string,
    obj: Pod | ControllerRevision,
    owner: DaemonSet,
    options?: WriteOptions
  ): Promise<void>;
  /** Returns the pods and ControllerRevisions that `selector` matches. */
  dependents(
    namespace: string,
    selector: LabelSelector | undefined
  ): Promise<Dependents>;
}
