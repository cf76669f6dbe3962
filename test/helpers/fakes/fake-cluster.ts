/**
 * In-memory fakes of the project's cluster ports (ClusterReader, PodControl,
 * RevisionControl, DaemonSetStatusWriter) over one shared object store — the
 * counterpart of upstream's `fakePodControl` + informer stores: a created pod
 * appears at once and its creation is observed, as in daemon_controller_test.
 * This is not a Kubernetes API: no validation, admission, defaulting or
 * watch; the adapter is proven against a real API server elsewhere.
 */

import { randomUUID } from 'node:crypto';
import { deepFreeze } from '#lib/adapters/kube/client/deep-freeze.js';
import { KubeApiError } from '#lib/errors.js';
import type {
  ClusterReader,
  DaemonSetStatusWriter,
  ExpectationsStore,
  Patch,
  PodControl,
  RevisionControl,
} from '#lib/ports/index.js';
import type {
  ControllerRevision,
  DaemonSet,
  KubeObject,
  Node,
  Pod,
} from '#lib/reconcile/k8s/types.js';
import { rfc3339 } from '../builders.js';
import type { FakeClock } from './fake-clock.js';

const notFound = (what: string) =>
  new KubeApiError(`${what} not found`, {
    reason: 'NotFound',
    statusCode: 404,
  });

const byName = <T extends KubeObject>(items: T[], name: string) =>
  items.find((o) => o.metadata?.name === name);

/** Applies the few patch shapes the controller sends (ownerRefs, labels). */
/**
 * Applies the strategic-merge patches the sync sends: labels and
 * annotations merged, ownerReferences by uid (with `$patch: delete`),
 * containers by name, status conditions by type.
 */
const applyPatch = <T extends KubeObject>(obj: T, patch: Patch): void => {
  const body = JSON.parse(patch.body) as {
    metadata?: {
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
      ownerReferences?: ({ $patch?: string; uid: string } & object)[];
    };
    spec?: { containers?: { name: string; image?: string }[] };
    status?: { conditions?: { type: string }[] };
  };
  const meta = obj.metadata ?? {};
  obj.metadata = meta;
  if (body.metadata?.labels) {
    meta.labels = { ...meta.labels, ...body.metadata.labels };
  }
  if (body.metadata?.annotations) {
    meta.annotations = { ...meta.annotations, ...body.metadata.annotations };
  }
  for (const ref of body.metadata?.ownerReferences ?? []) {
    const others = (meta.ownerReferences ?? []).filter(
      (r) => r.uid !== ref.uid
    );
    meta.ownerReferences =
      ref.$patch === 'delete'
        ? others
        : [...others, ref as NonNullable<typeof meta.ownerReferences>[number]];
  }
  const pod = obj as unknown as Pod;
  for (const c of body.spec?.containers ?? []) {
    const target = pod.spec?.containers.find((x) => x.name === c.name);
    if (target && c.image !== undefined) target.image = c.image;
  }
  for (const cond of body.status?.conditions ?? []) {
    const status = pod.status ?? {};
    pod.status = status;
    status.conditions = [
      ...(status.conditions ?? []).filter((x) => x.type !== cond.type),
      cond as NonNullable<typeof status.conditions>[number],
    ];
  }
};

/** The cluster state plus call records. */
export class FakeCluster
  implements ClusterReader, PodControl, RevisionControl, DaemonSetStatusWriter
{
  daemonSets: DaemonSet[] = [];
  /** Overrides what a fresh (uncached) DaemonSet GET returns. */
  freshDaemonSet?: (ds: DaemonSet | undefined) => DaemonSet | undefined;
  nodes: Node[] = [];
  pods: Pod[] = [];
  revisions: ControllerRevision[] = [];

  /** Pods created since the last `clearRecords` (upstream `Templates`). */
  created: Pod[] = [];
  /** Pod names deleted since the last `clearRecords`. */
  deleted: string[] = [];
  patches: { name: string; patch: Patch }[] = [];
  /** Pod status patches (in-place update conditions). */
  statusPatches: { name: string; patch: Patch }[] = [];
  createCallCount = 0;
  /** The resourceVersion the last create got (the fake's only writes that count one). */
  lastCreatedVersion = 0;
  /** Creates beyond this many calls fail (upstream `CreateLimit`); 0 = none. */
  createLimit = 0;
  /** Error thrown by every create (upstream `FakePodControl.Err`). */
  createError?: Error;
  /** Error thrown by every pod delete. */
  deleteError?: Error;
  /** Error thrown by every pod patch. */
  patchError?: Error;
  statusUpdates: DaemonSet[] = [];
  /** Status writes that fail before one succeeds. */
  statusFailures = 0;
  freshGets = 0;
  freshGetError?: Error;
  /** Error thrown by every node list (an unreachable or failing server). */
  listNodesError?: Error;
  /** DaemonSet gets and node lists served. */
  reads = 0;

  constructor(
    private readonly clock: FakeClock,
    private readonly expectations: ExpectationsStore,
    private readonly cluster = 'test'
  ) {}

  clearRecords(): void {
    this.created = [];
    this.deleted = [];
    this.patches = [];
    this.statusPatches = [];
    this.createCallCount = 0;
  }

  #dsKey(owner: DaemonSet): string {
    return `${this.cluster}/${owner.metadata?.namespace}/${owner.metadata?.name}`;
  }

  // ClusterReader
  async getDaemonSet(namespace: string, name: string) {
    this.reads++;
    return structuredClone(
      this.daemonSets.find(
        (d) => d.metadata?.namespace === namespace && d.metadata?.name === name
      )
    );
  }
  async getDaemonSetFresh(namespace: string, name: string) {
    this.freshGets++;
    if (this.freshGetError) throw this.freshGetError;
    const ds = await this.getDaemonSet(namespace, name);
    return this.freshDaemonSet ? this.freshDaemonSet(ds) : ds;
  }
  // Frozen as the reconciler's cache keeps them: a sync must not change
  // what it read.
  async listNodes() {
    this.reads++;
    if (this.listNodesError) throw this.listNodesError;
    return deepFreeze(structuredClone(this.nodes));
  }
  async listPods(namespace: string) {
    return deepFreeze(
      structuredClone(
        this.pods.filter((p) => p.metadata?.namespace === namespace)
      )
    );
  }
  async listControllerRevisions(namespace: string) {
    return structuredClone(
      this.revisions.filter((r) => r.metadata?.namespace === namespace)
    );
  }
  async getPod(namespace: string, name: string) {
    return structuredClone(
      this.pods.find(
        (p) => p.metadata?.namespace === namespace && p.metadata?.name === name
      )
    );
  }

  async getControllerRevisionFresh(namespace: string, name: string) {
    return structuredClone(
      this.revisions.find(
        (r) => r.metadata?.namespace === namespace && r.metadata?.name === name
      )
    );
  }

  // PodControl
  async createPod(namespace: string, pod: Pod, owner: DaemonSet) {
    this.createCallCount++;
    if (this.createLimit !== 0 && this.createCallCount > this.createLimit) {
      throw new KubeApiError(
        `not creating pod, limit ${this.createLimit} already reached (create call ${this.createCallCount})`,
        { reason: 'Forbidden', statusCode: 403 }
      );
    }
    if (this.createError) throw this.createError;
    const created = structuredClone(pod);
    created.metadata = {
      ...created.metadata,
      name: `${pod.metadata?.generateName}${randomUUID().slice(0, 5)}`,
      namespace,
      uid: randomUUID(),
      creationTimestamp: rfc3339(this.clock.now()),
      resourceVersion: String(++this.lastCreatedVersion),
    };
    created.status = { phase: 'Pending' };
    this.pods.push(created);
    this.created.push(created);
    await this.expectations.creationObserved(this.#dsKey(owner));
    return created.metadata.resourceVersion;
  }
  async deletePod(namespace: string, name: string, owner: DaemonSet) {
    if (this.deleteError) throw this.deleteError;
    const pod = this.pods.find(
      (p) => p.metadata?.namespace === namespace && p.metadata?.name === name
    );
    if (pod === undefined) throw notFound(`pod ${name}`);
    this.pods = this.pods.filter((p) => p !== pod);
    this.deleted.push(name);
    await this.expectations.deletionObserved(this.#dsKey(owner));
  }
  async patchPod(_namespace: string, name: string, patch: Patch) {
    if (this.patchError) throw this.patchError;
    const pod = byName(this.pods, name);
    if (pod === undefined) throw notFound(`pod ${name}`);
    applyPatch(pod, patch);
    this.patches.push({ name, patch });
  }
  async patchPodStatus(_namespace: string, name: string, patch: Patch) {
    const pod = byName(this.pods, name);
    if (pod === undefined) throw notFound(`pod ${name}`);
    applyPatch(pod, patch);
    this.statusPatches.push({ name, patch });
  }

  // RevisionControl
  async createRevision(namespace: string, revision: ControllerRevision) {
    const name = revision.metadata?.name ?? '';
    if (byName(this.revisions, name)) {
      throw new KubeApiError(`revision ${name} already exists`, {
        reason: 'AlreadyExists',
        statusCode: 409,
      });
    }
    const stored = structuredClone(revision);
    stored.metadata = { ...stored.metadata, namespace, uid: randomUUID() };
    this.revisions.push(stored);
    return structuredClone(stored);
  }
  async updateRevision(_namespace: string, revision: ControllerRevision) {
    const name = revision.metadata?.name ?? '';
    const i = this.revisions.findIndex((r) => r.metadata?.name === name);
    if (i < 0) throw notFound(`revision ${name}`);
    this.revisions[i] = structuredClone(revision);
    return structuredClone(revision);
  }
  async patchRevision(_namespace: string, name: string, patch: Patch) {
    const r = byName(this.revisions, name);
    if (r === undefined) throw notFound(`revision ${name}`);
    applyPatch(r, patch);
  }
  async deleteRevision(_namespace: string, name: string) {
    if (!byName(this.revisions, name)) throw notFound(`revision ${name}`);
    this.revisions = this.revisions.filter((r) => r.metadata?.name !== name);
  }

  // DaemonSetStatusWriter
  async updateStatus(ds: DaemonSet) {
    this.statusUpdates.push(structuredClone(ds));
    if (this.statusFailures > 0) {
      this.statusFailures--;
      throw new KubeApiError('conflict', {
        reason: 'Conflict',
        statusCode: 409,
      });
    }
    const i = this.daemonSets.findIndex(
      (d) => d.metadata?.uid === ds.metadata?.uid
    );
    if (i < 0) throw notFound(`daemonset ${ds.metadata?.name}`);
    const stored = this.daemonSets[i] as DaemonSet;
    stored.status = structuredClone(ds.status);
    return structuredClone(stored);
  }
}
