/**
 * The campaign's invariant checker, independent of the product: its own
 * list+watch of pods, nodes, DaemonSets and ControllerRevisions (through
 * client-node and an admin kubeconfig, nothing from lib/), a bounded
 * history of what it saw, and the DaemonSet controller's invariants judged
 * on every event (and every TICK_MS for the ones that depend on time).
 * The semantics of each invariant are in its own file, ported from
 * upstream pkg/controller/daemon.
 *
 * @example
 * const checker = await InvariantChecker.start({ kubeconfigPath, namespace,
 *   nodeLabel: { key: 'campaign', value: runId } });
 * checker.note('fault: API server unreachable');
 * checker.setControllerBlocked(true);
 * // …
 * const result = await checker.awaitConvergence(120_000);
 * for (const v of checker.violations()) console.log(checker.minimalHistory(v));
 * await checker.stop();
 */
import { KubeConfig } from '@kubernetes/client-node';
import { ClusterView } from './cluster-view.js';
import { ControllerPodMonitor } from './controller-pods.js';
import { divergencesOf, notConverged, unseenWrites } from './convergence.js';
import { EventIntake, HOLD_MS } from './event-intake.js';
import { ForeignPodMonitor } from './foreign-pods.js';
import { History, type HistoryEntry } from './history.js';
import { IneligiblePodMonitor } from './ineligible-pods.js';
import type { DaemonSetKind } from './kube-objects.js';
import { OnDeleteRolloutMonitor } from './on-delete-rollout.js';
import { OnePodPerNodeMonitor } from './one-pod-per-node.js';
import { ProductWritesMonitor } from './product-writes.js';
import { UnavailabilityBudgetMonitor } from './unavailability-budget.js';
import { subjectsOf, type Violation } from './violation.js';
import { WatchSet } from './watch-set.js';

export type { HistoryEntry } from './history.js';
export type { InvariantName, Violation } from './violation.js';

/** How the runner starts the checker. */
export interface CheckerOptions {
  /** Admin kubeconfig file. */
  kubeconfigPath: string;
  /** The run's DaemonSets and pods live here. */
  namespace: string;
  /** Only nodes carrying it belong to the run. */
  nodeLabel: { key: string; value: string };
  /** The kind of the run's DaemonSets (default apps/v1 DaemonSet). */
  daemonSetKind?: DaemonSetKind;
  /** How long a pod may stay on a node that must not run it while no fault blocks the controller (default 30 s). */
  ineligibleGraceMs?: number;
  /**
   * How far in the controller's favour time is read when judging a
   * deletion against the unavailable budget (default 4 s): its cache lags,
   * its clock may be skewed by ±2 s, a DELETE may take 1.5 s to land, and
   * the checker holds events for the cross-watch merge.
   */
  slackMs?: number;
  /**
   * The product's field manager, in a mode where the cluster's own
   * controller makes every pod (apps/v1+OnDelete): a pod spec or a
   * DaemonSet written by it is a violation.
   */
  productFieldManager?: string;
  now?: () => number;
}

/** How often held events are released and time-based invariants judged. */
const TICK_MS = 100;
const DEFAULT_INELIGIBLE_GRACE_MS = 30_000;
const DEFAULT_SLACK_MS = 4_000;
/**
 * After a watch is back, stray pods are judged only once its re-list is
 * applied (held HOLD_MS), so a DaemonSet made meanwhile is in the view.
 */
const AFTER_WATCH_OUTAGE_MS = HOLD_MS + 1_000;
const CONVERGENCE_POLL_MS = 200;
/** minimalHistory's default window either side of the violation. */
const HISTORY_WINDOW_MS = 60_000;
/** At most this many entries are printed for one violation. */
const MINIMAL_HISTORY_LIMIT = 200;

/** Watches a namespace and its run's nodes and judges the invariants. */
export class InvariantChecker {
  readonly #now: () => number;
  readonly #view = new ClusterView();
  readonly #history = new History();
  readonly #violations: Violation[] = [];
  readonly #chaos = new Set<string>();
  readonly #watches: WatchSet;
  readonly #intake: EventIntake;
  readonly #onePerNode = new OnePodPerNodeMonitor();
  readonly #budget: UnavailabilityBudgetMonitor;
  readonly #onDelete: OnDeleteRolloutMonitor;
  readonly #productWrites: ProductWritesMonitor | undefined;
  readonly #ineligible: IneligiblePodMonitor;
  readonly #foreign = new ForeignPodMonitor();
  readonly #strays = new ControllerPodMonitor((pod) =>
    this.#foreign.isMarked(pod)
  );
  #ticker: NodeJS.Timeout | undefined;
  #blocked = false;
  /** Since when every watch runs (undefined while one is down). */
  #watchesUpSinceMs: number | undefined;

  private constructor(
    private readonly options: CheckerOptions,
    kc: KubeConfig
  ) {
    this.#now = options.now ?? Date.now;
    this.#budget = new UnavailabilityBudgetMonitor(
      options.nodeLabel,
      (pod) => this.#chaos.has(pod),
      options.slackMs ?? DEFAULT_SLACK_MS
    );
    this.#onDelete = new OnDeleteRolloutMonitor(
      options.nodeLabel,
      (pod) => this.#chaos.has(pod),
      options.slackMs ?? DEFAULT_SLACK_MS
    );
    this.#productWrites =
      options.productFieldManager === undefined
        ? undefined
        : new ProductWritesMonitor(options.productFieldManager);
    this.#ineligible = new IneligiblePodMonitor(
      options.nodeLabel,
      options.ineligibleGraceMs ?? DEFAULT_INELIGIBLE_GRACE_MS
    );
    this.#intake = new EventIntake({
      view: this.#view,
      history: this.#history,
      now: this.#now,
      onPodChange: (before, after, atMs) => {
        this.#report(
          this.#budget.observePodChange(this.#view, before, after, atMs)
        );
        this.#report(
          this.#onDelete.observePodChange(this.#view, before, after, atMs)
        );
      },
      afterPodChange: (name, after, atMs) => {
        const v = this.#foreign.observe(name, after, atMs);
        if (v) this.#report([v]);
      },
      judge: (atMs) => {
        this.#budget.observeView(this.#view, atMs);
        this.#onDelete.observeView(this.#view, atMs);
        this.#judgeInstant(atMs);
      },
    });
    this.#watches = new WatchSet(
      kc,
      options.namespace,
      (kind) => this.#intake.sinkFor(kind),
      this.#now,
      options.daemonSetKind
    );
  }

  /** Resolves once the initial lists are in and every watch runs. */
  static async start(options: CheckerOptions): Promise<InvariantChecker> {
    const kc = new KubeConfig();
    kc.loadFromFile(options.kubeconfigPath);
    const checker = new InvariantChecker(options, kc);
    try {
      await checker.#watches.start();
      checker.#intake.release(checker.#now(), true);
      // The initial lists are all applied: nothing to wait for.
      checker.#watchesUpSinceMs = checker.#now() - AFTER_WATCH_OUTAGE_MS;
    } catch (cause) {
      await checker.stop();
      throw new Error('invariant checker: initial list or watch failed', {
        cause,
      });
    }
    checker.#ticker = setInterval(() => checker.#tick(), TICK_MS);
    return checker;
  }

  /** Records a runner action or fault in the history. */
  note(text: string): void {
    this.#history.add({ atMs: this.#now(), kind: 'note', text, subjects: [] });
  }

  /** Guards a pod no DaemonSet may touch. */
  markForeign(podName: string): void {
    this.#foreign.mark(podName, this.#view.pods.get(podName));
    this.note(`foreign pod ${podName} marked`);
  }

  /** Allows the next change of a foreign pod: the runner is making it. */
  expectForeignChange(podName: string): void {
    this.#foreign.expectChange(podName);
    this.note(`runner changes foreign pod ${podName}`);
  }

  /** Declares a daemon pod's failure or deletion the runner's doing. */
  markChaos(podName: string): void {
    this.#chaos.add(podName);
    this.note(`chaos on pod ${podName}`);
  }

  /** Pauses (true) or resumes the ineligible-node grace clock. */
  setControllerBlocked(blocked: boolean): void {
    // The runner may call this every 100 ms; only a change is history.
    if (blocked !== this.#blocked) {
      this.note(`controller ${blocked ? 'blocked' : 'unblocked'}`);
    }
    this.#blocked = blocked;
    this.#ineligible.setBlocked(blocked, this.#now());
  }

  /** Returns the violations found so far (convergence ones are returned by awaitConvergence). */
  violations(): Violation[] {
    return [...this.#violations];
  }

  /**
   * Polls the checker's own view until every DaemonSet has converged — and
   * shows at least the generation the runner's last write of it made
   * (`written`, by name), so a view from before that write cannot pass.
   */
  async awaitConvergence(
    timeoutMs: number,
    written: ReadonlyMap<string, number> = new Map()
  ): Promise<{ ok: true; ms: number } | { ok: false; violation: Violation }> {
    const started = this.#now();
    for (;;) {
      const divergences = [
        ...divergencesOf(
          this.#view,
          this.options.nodeLabel,
          this.#watches.downPaths(),
          this.#now()
        ),
        ...unseenWrites(this.#view, written),
      ];
      if (divergences.length === 0)
        return { ok: true, ms: this.#now() - started };
      if (this.#now() - started >= timeoutMs) {
        const violation = notConverged(divergences, timeoutMs, this.#now());
        this.#noteViolation(violation);
        return { ok: false, violation };
      }
      await new Promise((r) => setTimeout(r, CONVERGENCE_POLL_MS));
    }
  }

  /** Returns the notes and the entries about the violation's DaemonSet, node and pod within `around` ms of it. */
  minimalHistory(v: Violation, around = HISTORY_WINDOW_MS): HistoryEntry[] {
    return this.#history.around(
      subjectsOf(v),
      v.atMs,
      around,
      MINIMAL_HISTORY_LIMIT
    );
  }

  /** Returns the whole history (every event and note), oldest first. */
  fullHistory(): HistoryEntry[] {
    return this.#history
      .all()
      .map(({ atMs, kind, text }) => ({ atMs, kind, text }));
  }

  /** Stops the watches and the clock. */
  async stop(): Promise<void> {
    clearInterval(this.#ticker);
    await this.#watches.stop();
  }

  #tick(): void {
    const now = this.#now();
    try {
      this.#intake.release(now, false);
      this.#judgeInstant(now);
      // The view holds the events received up to HOLD_MS ago.
      this.#report(this.#ineligible.evaluate(this.#view, now - HOLD_MS));
      this.#report(this.#watches.checkOutages(now));
      this.#report(
        this.#strays.evaluate(this.#view, now, this.#watchesUp(now))
      );
      this.#report(this.#productWrites?.evaluate(this.#view, now) ?? []);
    } catch (e) {
      this.#report([
        {
          invariant: 'checker-watch-failed',
          atMs: now,
          detail: `checker error: ${(e as Error).stack}`,
        },
      ]);
    }
  }

  #judgeInstant(atMs: number): void {
    this.#report(this.#onePerNode.evaluate(this.#view, atMs));
    this.#budget.dropRecovered(this.#view, atMs);
  }

  /** Whether every watch has run long enough for stray pods to be judged. */
  #watchesUp(now: number): boolean {
    if (this.#watches.downPaths().length > 0) {
      this.#watchesUpSinceMs = undefined;
      return false;
    }
    this.#watchesUpSinceMs ??= now;
    return now - this.#watchesUpSinceMs >= AFTER_WATCH_OUTAGE_MS;
  }

  #report(found: readonly Violation[]): void {
    for (const v of found) {
      this.#violations.push(v);
      this.#noteViolation(v);
    }
  }

  #noteViolation(v: Violation): void {
    this.#history.add({
      atMs: v.atMs,
      kind: 'note',
      text: `VIOLATION ${v.invariant}: ${v.detail}`,
      subjects: subjectsOf(v),
    });
  }
}
