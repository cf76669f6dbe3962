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

/** How a write is sent. */
export interface WriteOptions {
  /** Sends `dryRun=All`: admission and validation run, nothing is stored. */
  dryRun?: boolean;
}

/**
 * The own kind's objects as the kubectl plugin reads and changes them.
 * Errors are KubeApiErrors (NotFound when the object is missing).
 */
export interface AdvancedDaemonSets {
  get(namespace: string, name: string): Promise<DaemonSet>;
  list(namespace: string | undefined): Promise<DaemonSet[]>;
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
