/**
 * Test-only wrappers around the ports a running stack uses, to put a fault
 * or a pause at an exact point: a worker that dies in the middle of its
 * creates, a sync held open after its first read, and a bridge that dies
 * after it received an event but before it queued it or checkpointed.
 */
import { systemClock } from '#lib/adapters/system-clock.js';
import type {
  BridgeLeaseStore,
  ClusterReader,
  ClusterSize,
  PodControl,
  ResourceVersions,
  WorkQueue,
} from '#lib/ports/index.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import type { Gate } from './stack-probes.js';

/** Never settles: what a call of a dead sandbox looks like from outside. */
const never = (): Promise<never> => new Promise<never>(() => undefined);

/**
 * Pod control whose `killAt`-th create kills the invocation (`kill`) and
 * then never returns; every other call goes through.
 */
export class KillingPodControl implements PodControl {
  /** Creates asked for so far, including the fatal one. */
  creates = 0;
  readonly #inner: PodControl;
  readonly #killAt: number;
  readonly #kill: () => void;

  constructor(inner: PodControl, killAt: number, kill: () => void) {
    this.#inner = inner;
    this.#killAt = killAt;
    this.#kill = kill;
  }

  createPod(
    namespace: string,
    pod: Pod,
    owner: DaemonSet
  ): Promise<string | undefined> {
    this.creates++;
    if (this.creates === this.#killAt) {
      this.#kill();
      return never();
    }
    return this.#inner.createPod(namespace, pod, owner);
  }

  deletePod(namespace: string, name: string, owner: DaemonSet) {
    return this.#inner.deletePod(namespace, name, owner);
  }

  patchPod(...args: Parameters<PodControl['patchPod']>) {
    return this.#inner.patchPod(...args);
  }
  patchPodStatus(...args: Parameters<PodControl['patchPodStatus']>) {
    return this.#inner.patchPodStatus(...args);
  }
}

/**
 * A reader that, once armed, holds the next sync right after it read the
 * DaemonSet (so it goes on with what it read) until the gate opens.
 */
export class HoldingReader implements ClusterReader {
  /** Every DaemonSet read (`namespace/name`) and when it returned. */
  readonly reads: { path: string; atMs: number }[] = [];
  readonly #inner: ClusterReader;
  #hold: { gate: Gate; entered: () => void; path: string } | undefined;

  constructor(inner: ClusterReader) {
    this.#inner = inner;
  }

  /**
   * Holds the next sync of `namespace/name` after its DaemonSet read;
   * resolves once that sync is held.
   */
  holdNext(gate: Gate, namespace: string, name: string): Promise<void> {
    return new Promise((entered) => {
      this.#hold = { gate, entered, path: `${namespace}/${name}` };
    });
  }

  async getDaemonSet(namespace: string, name: string) {
    const ds = await this.#inner.getDaemonSet(namespace, name);
    const path = `${namespace}/${name}`;
    this.reads.push({ path, atMs: systemClock.now() });
    const hold = this.#hold;
    if (hold?.path === path) {
      this.#hold = undefined;
      hold.entered();
      await hold.gate.opened;
    }
    return ds;
  }

  getDaemonSetFresh(namespace: string, name: string) {
    return this.#inner.getDaemonSetFresh(namespace, name);
  }

  listNodes(seen?: string) {
    return this.#inner.listNodes(seen);
  }

  listPods(namespace: string, owner: DaemonSet, seen?: string) {
    return this.#inner.listPods(namespace, owner, seen);
  }

  getPod(namespace: string, name: string) {
    return this.#inner.getPod(namespace, name);
  }

  listControllerRevisions(namespace: string) {
    return this.#inner.listControllerRevisions(namespace);
  }

  getControllerRevisionFresh(namespace: string, name: string) {
    return this.#inner.getControllerRevisionFresh(namespace, name);
  }
}

/**
 * The bridge's queue and lease store with one kill switch: once `arm()`ed,
 * the first queue call fails and kills the bridge — from then on no queue
 * call, checkpoint or release succeeds, so the events it received are
 * neither queued nor checkpointed, and its lease is left to expire.
 */
export class BridgeKillSwitch {
  readonly queue: WorkQueue;
  readonly leases: BridgeLeaseStore;
  /** The keys the bridge failed to queue (it died with them). */
  readonly lostKeys: string[] = [];
  /** The key whose queue call kills the bridge; undefined: not armed. */
  #armedFor: ((key: string) => boolean) | undefined;
  #dead = false;

  constructor(queue: WorkQueue, leases: BridgeLeaseStore) {
    const die = (key: string): Promise<never> => {
      this.#dead = true;
      this.lostKeys.push(key);
      return Promise.reject(new Error('bridge killed (test)'));
    };
    this.queue = {
      add: (key) => (this.#fatal(key) ? die(key) : queue.add(key)),
      addAfter: (key, ms) =>
        this.#fatal(key) ? die(key) : queue.addAfter(key, ms),
      addAnew: (key) => (this.#fatal(key) ? die(key) : queue.addAnew(key)),
    };
    const deadCall = () => Promise.reject(new Error('bridge is dead (test)'));
    this.leases = {
      acquire: (cluster, holder, ttlMs, runUntilMs) =>
        leases.acquire(cluster, holder, ttlMs, runUntilMs),
      checkpoint: (
        cluster: string,
        holder: string,
        versions: ResourceVersions,
        ttlMs: number,
        size?: ClusterSize
      ) =>
        this.#dead
          ? deadCall()
          : leases.checkpoint(cluster, holder, versions, ttlMs, size),
      peek: (clusters) => leases.peek(clusters),
      recordFailure: (cluster, holder) => leases.recordFailure(cluster, holder),
      claimTakeOver: (cluster, holder, claimId, staleMs) =>
        leases.claimTakeOver(cluster, holder, claimId, staleMs),
      release: (cluster, holder) =>
        this.#dead ? deadCall() : leases.release(cluster, holder),
      requestResync: (cluster) => leases.requestResync(cluster),
      completeResync: (cluster, requestedAtMs) =>
        leases.completeResync(cluster, requestedAtMs),
      forget: (cluster) => leases.forget(cluster),
    };
  }

  /** Whether a queue call for `key` kills (or finds dead) the bridge. */
  #fatal(key: string): boolean {
    return this.#dead || (this.#armedFor?.(key) ?? false);
  }

  /** Whether the bridge has died. */
  get dead(): boolean {
    return this.#dead;
  }

  /**
   * Makes the next queue call fatal — for `key` only, when given: events of
   * other keys the restarted bridge replays first must not kill it early.
   */
  arm(key?: string): void {
    this.#armedFor = (k) => key === undefined || k === key;
  }
}
