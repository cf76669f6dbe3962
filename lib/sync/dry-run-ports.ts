/**
 * The write ports of a sync, recording instead of writing: what `plan` and
 * `explain` run the real orchestrator on, so that what they print is what a
 * sync would do, decided by the same code. Reads go to the cluster; nothing
 * here touches it.
 */

import { ExpectationsTable } from '../policy/expectations-table.js';
import type {
  Clock,
  DaemonSetStatusWriter,
  EventRecorder,
  ExpectationsStore,
  FailedPodBackoffStore,
  Patch,
  PodControl,
  RecordedEventType,
  RevisionControl,
} from '../ports/index.js';
import type { BackoffEntry } from '../reconcile/backoff-policy.js';
import { getTargetNodeName } from '../reconcile/k8s/node-affinity.js';
import type {
  ControllerRevision,
  DaemonSet,
  DaemonSetStatus,
  Pod,
} from '../reconcile/k8s/types.js';

/** One write a sync would make. */
export type PlannedWrite =
  | { verb: 'create-pod'; node: string }
  | { verb: 'delete-pod'; pod: string }
  | { verb: 'patch-pod'; pod: string; patch: Patch; status: boolean }
  | { verb: 'create-revision' | 'update-revision'; revision: string }
  | { verb: 'patch-revision' | 'delete-revision'; revision: string }
  | { verb: 'update-status'; status: DaemonSetStatus }
  | { verb: 'event'; type: RecordedEventType; reason: string; message: string };

/** Records a sync's writes in order; each succeeds as the API would. */
export class DryRunWrites
  implements PodControl, RevisionControl, DaemonSetStatusWriter, EventRecorder
{
  readonly writes: PlannedWrite[] = [];

  async createPod(_ns: string, pod: Pod, _owner: DaemonSet) {
    this.writes.push({
      verb: 'create-pod',
      node: getTargetNodeName(pod) ?? '',
    });
    return undefined;
  }

  async deletePod(_ns: string, name: string, _owner: DaemonSet): Promise<void> {
    this.writes.push({ verb: 'delete-pod', pod: name });
  }

  async patchPod(_ns: string, name: string, patch: Patch): Promise<void> {
    this.writes.push({ verb: 'patch-pod', pod: name, patch, status: false });
  }

  async patchPodStatus(_ns: string, name: string, patch: Patch): Promise<void> {
    this.writes.push({ verb: 'patch-pod', pod: name, patch, status: true });
  }

  async createRevision(
    _ns: string,
    revision: ControllerRevision
  ): Promise<ControllerRevision> {
    this.writes.push({
      verb: 'create-revision',
      revision: revision.metadata?.name ?? '',
    });
    return revision;
  }

  async updateRevision(
    _ns: string,
    revision: ControllerRevision
  ): Promise<ControllerRevision> {
    this.writes.push({
      verb: 'update-revision',
      revision: revision.metadata?.name ?? '',
    });
    return revision;
  }

  async patchRevision(_ns: string, name: string): Promise<void> {
    this.writes.push({ verb: 'patch-revision', revision: name });
  }

  async deleteRevision(_ns: string, name: string): Promise<void> {
    this.writes.push({ verb: 'delete-revision', revision: name });
  }

  async updateStatus(daemonSet: DaemonSet): Promise<DaemonSet> {
    if (daemonSet.status !== undefined) {
      this.writes.push({ verb: 'update-status', status: daemonSet.status });
    }
    return daemonSet;
  }

  async record(
    _object: DaemonSet,
    type: RecordedEventType,
    reason: string,
    message: string
  ): Promise<void> {
    this.writes.push({ verb: 'event', type, reason, message });
  }
}

/**
 * Expectations read from `base` (the reconcilers' store, when given) until
 * the dry run writes them; its own writes stay here.
 */
export class DryRunExpectations extends ExpectationsTable {
  readonly #base: ExpectationsStore | undefined;

  constructor(clock: Clock, base?: ExpectationsStore) {
    super({ clock });
    this.#base = base;
  }

  override satisfiedExpectations(key: string): Promise<boolean> {
    return this.#base === undefined || this.holds(key)
      ? super.satisfiedExpectations(key)
      : this.#base.satisfiedExpectations(key);
  }
}

/** Failed-pod backoff read from `base` (when given); writes stay here. */
export class DryRunBackoff implements FailedPodBackoffStore {
  readonly #base: FailedPodBackoffStore | undefined;
  readonly #overlay = new Map<string, BackoffEntry>();
  /** Entries read from `base`, by id (what explain reports). */
  readonly read = new Map<string, BackoffEntry>();

  constructor(base?: FailedPodBackoffStore) {
    this.#base = base;
  }

  async get(id: string): Promise<BackoffEntry | undefined> {
    if (this.#overlay.has(id)) return this.#overlay.get(id);
    const entry = await this.#base?.get(id);
    if (entry !== undefined) this.read.set(id, entry);
    return entry;
  }

  async put(id: string, entry: BackoffEntry): Promise<void> {
    this.#overlay.set(id, entry);
  }
}
