/**
 * RequestBudget over one shared state per cluster (a DynamoDB item, or a
 * Map in the local run): the bucket and its adaptive rate
 * (lib/policy/adaptive-rate.ts). A container claims tokens a chunk at a
 * time with a compare-and-set on the state's version, so most requests
 * cost no store call; it sums its answers locally and folds them into the
 * state with its next claim — never a write per request — or, when one
 * says congestion, at once (at most one fold per FOLD_SPAN_MS).
 */
import { RequestBudgetExhaustedError } from '../errors.js';
import {
  type ApiSample,
  addSignal,
  advance,
  emptySample,
  foldSample,
  isUrgent,
  mergeSamples,
  retryUntil,
} from '../policy/adaptive-rate.js';
import {
  type BudgetState,
  claimSize,
  takeTokens,
} from '../policy/request-budget.js';
import { MAX_BUDGET_WAIT_MS } from '../policy/time-limits.js';
import type {
  ApiBudget,
  ApiSignal,
  BudgetUsage,
  Clock,
  RequestBudget,
} from '../ports/index.js';
import { sleep } from '../sleep.js';

/** The longest one request waits for a token (lib/policy/time-limits.ts). */
export { MAX_BUDGET_WAIT_MS };
/** The least time between a container's writes prompted by congestion. */
export const FOLD_SPAN_MS = 100;

/** Where a cluster's budget state is kept, with a version to write against. */
export interface BudgetStateStore<V> {
  /** Returns the cluster's live state (none: absent or expired) and version. */
  read(cluster: string): Promise<{ state?: BudgetState; version: V }>;
  /** Stores `state` if the version is still `version`; returns whether. */
  write(cluster: string, state: BudgetState, version: V): Promise<boolean>;
}

/** Per-cluster adaptive token buckets in a shared store. */
export class SharedRequestBudget<V> implements RequestBudget {
  readonly #store: BudgetStateStore<V>;
  readonly #clock: Clock;
  readonly #sleep: (ms: number) => Promise<void>;
  /** Tokens this container holds, per cluster. */
  readonly #local = new Map<string, number>();
  /** Until when a Retry-After this container got holds, per cluster. */
  readonly #blockedUntil = new Map<string, number>();
  readonly #pending = new Map<string, ApiSample>();
  readonly #usage = new Map<string, BudgetUsage>();
  readonly #lastWriteMs = new Map<string, number>();
  readonly #claims = new Map<string, Promise<void>>();
  readonly #folds = new Map<string, Promise<void>>();

  constructor(o: {
    store: BudgetStateStore<V>;
    clock: Clock;
    sleep?: (ms: number) => Promise<void>;
  }) {
    this.#store = o.store;
    this.#clock = o.clock;
    this.#sleep = o.sleep ?? sleep;
  }

  async acquire(cluster: string, ceiling: ApiBudget): Promise<void> {
    const startMs = this.#clock.now();
    const giveUpAtMs = startMs + MAX_BUDGET_WAIT_MS;
    try {
      for (;;) {
        const now = this.#clock.now();
        const blockedMs = (this.#blockedUntil.get(cluster) ?? 0) - now;
        if (blockedMs > 0) {
          if (now + blockedMs > giveUpAtMs) {
            throw new RequestBudgetExhaustedError(cluster, blockedMs);
          }
          await this.#sleep(blockedMs);
          continue;
        }
        const left = this.#local.get(cluster) ?? 0;
        if (left >= 1) {
          this.#local.set(cluster, left - 1);
          return;
        }
        // One claim per cluster at a time; the others wait for its tokens.
        let claim = this.#claims.get(cluster);
        if (claim === undefined) {
          claim = this.#claim(cluster, ceiling, giveUpAtMs).finally(() =>
            this.#claims.delete(cluster)
          );
          this.#claims.set(cluster, claim);
        }
        await claim;
      }
    } finally {
      this.#use(cluster, 0, this.#clock.now() - startMs);
    }
  }

  report(
    cluster: string,
    ceiling: ApiBudget,
    signal: ApiSignal
  ): Promise<void> {
    const now = this.#clock.now();
    const sample = addSignal(
      this.#pending.get(cluster) ?? emptySample(),
      signal,
      now
    );
    this.#pending.set(cluster, sample);
    if (signal.congestion === 'throttled') this.#use(cluster, 1, 0);
    if (signal.retryAfterMs !== undefined) {
      // Honoured here at once; the tokens held were granted before it.
      this.#local.set(cluster, 0);
      this.#blockedUntil.set(
        cluster,
        Math.max(
          this.#blockedUntil.get(cluster) ?? 0,
          retryUntil(now, signal.retryAfterMs)
        )
      );
    }
    if (!isUrgent(sample)) return Promise.resolve();
    let fold = this.#folds.get(cluster);
    if (fold === undefined) {
      fold = this.#foldSoon(cluster, ceiling).finally(() =>
        this.#folds.delete(cluster)
      );
      this.#folds.set(cluster, fold);
    }
    return fold;
  }

  takeUsage(cluster: string): BudgetUsage {
    const usage = this.#usage.get(cluster) ?? { throttled: 0, waitMs: 0 };
    this.#usage.delete(cluster);
    return usage;
  }

  #use(cluster: string, throttled: number, waitMs: number): void {
    const u = this.#usage.get(cluster) ?? { throttled: 0, waitMs: 0 };
    this.#usage.set(cluster, {
      throttled: u.throttled + throttled,
      waitMs: u.waitMs + waitMs,
    });
  }

  /**
   * Folds the pending answers in, no sooner than FOLD_SPAN_MS after this
   * container's last write, and again while urgent ones keep arriving.
   */
  async #foldSoon(cluster: string, ceiling: ApiBudget): Promise<void> {
    try {
      do {
        const last = this.#lastWriteMs.get(cluster);
        const sinceMs =
          last === undefined ? FOLD_SPAN_MS : this.#clock.now() - last;
        if (sinceMs < FOLD_SPAN_MS) await this.#sleep(FOLD_SPAN_MS - sinceMs);
        await this.#update(cluster, ceiling, false);
      } while (isUrgent(this.#pending.get(cluster) ?? emptySample()));
    } catch {
      // The answers went back to the pending sample: the next claim
      // writes them (and reports the store's failure to its request).
    }
  }

  /** Claims a chunk of tokens into #local, waiting for refills. */
  async #claim(
    cluster: string,
    ceiling: ApiBudget,
    giveUpAtMs: number
  ): Promise<void> {
    for (;;) {
      const { taken, waitMs } = await this.#update(cluster, ceiling, true);
      if (taken > 0) {
        this.#local.set(cluster, (this.#local.get(cluster) ?? 0) + taken);
        return;
      }
      if (this.#clock.now() + waitMs > giveUpAtMs) {
        throw new RequestBudgetExhaustedError(cluster, waitMs);
      }
      await this.#sleep(waitMs);
    }
  }

  /**
   * Reads the cluster's state, folds the pending answers in, takes a chunk
   * of tokens when `claim`, and writes the result against the version read
   * (again on a conflict). Returns the tokens taken, or how long until
   * there are some.
   */
  async #update(
    cluster: string,
    ceiling: ApiBudget,
    claim: boolean
  ): Promise<{ taken: number; waitMs: number }> {
    for (;;) {
      const { state: stored, version } = await this.#store.read(cluster);
      const now = this.#clock.now();
      const sample = this.#pending.get(cluster);
      this.#pending.delete(cluster);
      let state = advance(stored, now, ceiling);
      if (sample !== undefined) state = foldSample(state, sample, now, ceiling);
      const took = claim
        ? takeTokens(state, claimSize(state.rateQps), now, ceiling)
        : { state, taken: 0, waitMs: 0 };
      const unchanged =
        stored !== undefined &&
        took.taken === 0 &&
        sample === undefined &&
        state.intervalStartMs === stored.intervalStartMs;
      // Nothing to store: the refill follows from the time alone.
      if (unchanged) return took;
      let written: boolean;
      try {
        written = await this.#store.write(cluster, took.state, version);
      } catch (e) {
        this.#keep(cluster, sample);
        throw e;
      }
      if (written) {
        this.#lastWriteMs.set(cluster, now);
        return took;
      }
      // Another container wrote meanwhile: read again.
      this.#keep(cluster, sample);
    }
  }

  /** Puts answers back into the pending sample. */
  #keep(cluster: string, sample: ApiSample | undefined): void {
    if (sample === undefined) return;
    const pending = this.#pending.get(cluster);
    this.#pending.set(
      cluster,
      pending === undefined ? sample : mergeSamples(pending, sample)
    );
  }
}
