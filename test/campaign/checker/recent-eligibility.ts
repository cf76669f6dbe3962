/**
 * What each DaemonSet looked like, and which nodes should run it, over the
 * last few seconds: the controller decides with an informer cache that lags
 * the checker's view, a clock that may be skewed, and requests that take
 * up to seconds to land, so a deletion is judged against everything in
 * force within a slack before it (upstream computes maxUnavailable per sync
 * from the spec and the nodes it sees then).
 *
 * Fed from the applied watch events only (their arrival times), never from
 * the ticker: eligibility changes only with a node or DaemonSet event.
 */
import type { ClusterView } from './cluster-view.js';
import type { DaemonSet } from './kube-objects.js';
import { nodeShouldRunDaemonPod, type RunLabel } from './node-eligibility.js';

/** One node's eligibility for one DaemonSet, and when it last changed. */
interface NodeState {
  eligible: boolean;
  changedMs: number;
  /** When it last stopped being eligible (undefined: never was). */
  lastEligibleMs?: number;
}

/** A DaemonSet version and since when it was in force. */
interface SpecSince {
  fromMs: number;
  ds: DaemonSet;
}

interface Tracked {
  nodes: Map<string, NodeState>;
  specs: SpecSince[];
}

/** Keeps, per DaemonSet uid, its recent specs and node eligibility. */
export class RecentEligibility {
  readonly #byDs = new Map<string, Tracked>();

  constructor(
    private readonly runLabel: RunLabel,
    private readonly slackMs: number
  ) {}

  /** Records the view's state as of `atMs` (after an applied event). */
  observe(view: ClusterView, atMs: number): void {
    const active = view.activeDaemonSets();
    const uids = new Set(active.map((ds) => ds.metadata.uid));
    for (const uid of [...this.#byDs.keys()]) {
      if (!uids.has(uid)) this.#byDs.delete(uid);
    }
    for (const ds of active) {
      const tracked = this.#byDs.get(ds.metadata.uid) ?? {
        nodes: new Map<string, NodeState>(),
        specs: [],
      };
      this.#byDs.set(ds.metadata.uid, tracked);
      this.#observeSpec(tracked, ds, atMs);
      this.#observeNodes(view, tracked, ds, atMs);
    }
  }

  /** Whether the node was unknown or must not run the DaemonSet at some time in [fromMs, now]. */
  wasIneligibleSince(uid: string, node: string, fromMs: number): boolean {
    const state = this.#byDs.get(uid)?.nodes.get(node);
    return !state?.eligible || state.changedMs >= fromMs;
  }

  /** Returns how many nodes should run the DaemonSet now or did at some time since `fromMs`. */
  eligibleSince(uid: string, fromMs: number): number {
    let count = 0;
    for (const state of this.#byDs.get(uid)?.nodes.values() ?? []) {
      if (state.eligible || (state.lastEligibleMs ?? -Infinity) >= fromMs) {
        count++;
      }
    }
    return count;
  }

  /** Returns how many nodes should run the DaemonSet now and did throughout [fromMs, now]. */
  eligibleThroughout(uid: string, fromMs: number): number {
    let count = 0;
    for (const state of this.#byDs.get(uid)?.nodes.values() ?? []) {
      if (state.eligible && state.changedMs < fromMs) count++;
    }
    return count;
  }

  /** Returns the DaemonSet versions in force at some time since `fromMs` (the current one at least). */
  specsSince(current: DaemonSet, fromMs: number): DaemonSet[] {
    const specs = this.#byDs.get(current.metadata.uid)?.specs ?? [];
    const recent = specs.filter(
      (_spec, i) => (specs[i + 1]?.fromMs ?? Infinity) >= fromMs
    );
    return [...recent.map((s) => s.ds), current];
  }

  #observeSpec(tracked: Tracked, ds: DaemonSet, atMs: number): void {
    const last = tracked.specs.at(-1);
    if (last?.ds.metadata.resourceVersion === ds.metadata.resourceVersion) {
      return;
    }
    tracked.specs.push({ fromMs: atMs, ds });
    // Keep the versions a deletion judged from now on can still fall within.
    while ((tracked.specs[1]?.fromMs ?? Infinity) < atMs - this.slackMs) {
      tracked.specs.shift();
    }
  }

  #observeNodes(
    view: ClusterView,
    tracked: Tracked,
    ds: DaemonSet,
    atMs: number
  ): void {
    const names = new Set([...view.nodes.keys(), ...tracked.nodes.keys()]);
    for (const name of names) {
      const node = view.nodes.get(name);
      const eligible =
        node !== undefined &&
        nodeShouldRunDaemonPod(node, ds, this.runLabel).shouldRun;
      const state = tracked.nodes.get(name);
      if (!state) {
        // First seen: as far as the checker knows, it just became so.
        tracked.nodes.set(name, { eligible, changedMs: atMs });
        continue;
      }
      if (state.eligible !== eligible) {
        if (state.eligible) state.lastEligibleMs = atMs;
        state.eligible = eligible;
        state.changedMs = atMs;
      }
      const stale = atMs - Math.max(state.changedMs, state.lastEligibleMs ?? 0);
      if (!node && stale > this.slackMs) tracked.nodes.delete(name);
    }
  }
}
