/**
 * SharedRequestBudget over a store the test can read: what a container
 * claims and writes, how it honours a Retry-After and folds its answers —
 * never a write per request — and what it reports for metrics. Time is a
 * fake clock that the budget's sleep advances.
 */
import { describe, expect, it } from 'vitest';
import { MemoryRequestBudget } from '#lib/adapters/memory/memory-request-budget.js';
import {
  type BudgetStateStore,
  FOLD_SPAN_MS,
  SharedRequestBudget,
} from '#lib/adapters/shared-request-budget.js';
import type { BudgetState } from '#lib/policy/request-budget.js';
import { FakeClock } from '#test/helpers/fakes/fake-clock.js';

const ceiling = { qps: 400, burst: 800 };

/**
 * A store in a Map that counts reads and writes, can be made to fail, and
 * fails a read past `maxReads` (a claim loop that spins ends the test).
 */
class CountingStore implements BudgetStateStore<number> {
  readonly states = new Map<string, { state: BudgetState; v: number }>();
  reads = 0;
  writes = 0;
  failing = false;
  maxReads = Number.POSITIVE_INFINITY;

  async read(cluster: string) {
    if (++this.reads > this.maxReads) throw new Error('read in a loop');
    const s = this.states.get(cluster);
    return s === undefined ? { version: 0 } : { state: s.state, version: s.v };
  }

  async write(cluster: string, state: BudgetState, version: number) {
    if (this.failing) throw new Error('store down');
    if ((this.states.get(cluster)?.v ?? 0) !== version) return false;
    this.writes++;
    this.states.set(cluster, { state, v: version + 1 });
    return true;
  }

  rate(cluster: string): number | undefined {
    return this.states.get(cluster)?.state.rateQps;
  }
}

const budgetOn = (store: CountingStore) => {
  const clock = new FakeClock();
  const slept: number[] = [];
  const budget = new SharedRequestBudget({
    store,
    clock,
    sleep: async (ms) => {
      slept.push(ms);
      clock.step(ms);
    },
  });
  return { budget, clock, slept };
};

describe('SharedRequestBudget', () => {
  it('lets the burst through, claiming a chunk per store write', async () => {
    // Prepare
    const store = new CountingStore();
    const { budget, slept } = budgetOn(store);
    // Act: the 100-token burst of the initial 50 qps.
    for (let i = 0; i < 100; i++) await budget.acquire('c', ceiling);
    // Assess: chunks of 5 (a tenth of a second at 50 qps).
    expect(slept).toEqual([]);
    expect(store.writes).toBe(20);
  });

  it('raises the rate of a busy cluster each second, up to the ceiling (slow start)', async () => {
    // Prepare
    const store = new CountingStore();
    const { budget, clock } = budgetOn(store);
    const start = clock.now();
    // Act: as busy as the budget lets it be, for 4 s.
    while (clock.now() - start < 4_000) await budget.acquire('c', ceiling);
    // Assess
    expect(store.rate('c')).toBe(400);
  });

  it('keeps answers without congestion until the next claim (no write per request)', async () => {
    // Prepare
    const store = new CountingStore();
    const { budget } = budgetOn(store);
    await budget.acquire('c', ceiling);
    const writes = store.writes;
    // Act
    for (let i = 0; i < 4; i++) {
      await budget.acquire('c', ceiling);
      await budget.report('c', ceiling, { latencyMs: 12 });
    }
    // Assess: the chunk of 5 lasted; nothing was written.
    expect(store.writes).toBe(writes);
    await budget.acquire('c', ceiling);
    expect(store.writes).toBe(writes + 1);
    expect(store.states.get('c')?.state.baselineMs).toBe(12);
  });

  it('on a 429 halves the shared rate and sends nothing until its Retry-After has passed', async () => {
    // Prepare: a claim was written just now.
    const store = new CountingStore();
    const { budget, clock, slept } = budgetOn(store);
    await budget.acquire('c', ceiling);
    const at = clock.now();
    // Act
    await budget.report('c', ceiling, {
      latencyMs: 3,
      congestion: 'throttled',
      retryAfterMs: 1_000,
    });
    const folded = { rate: store.rate('c'), waited: [...slept] };
    await budget.acquire('c', ceiling);
    // Assess: the fold waited out the span since the claim's write; the
    // next request waited for the Retry-After, though tokens were held.
    expect(folded).toEqual({ rate: 25, waited: [FOLD_SPAN_MS] });
    expect(clock.now()).toBeGreaterThanOrEqual(at + 1_000);
    expect(budget.takeUsage('c')).toMatchObject({ throttled: 1 });
  });

  it('reports the time spent waiting for tokens, once', async () => {
    // Prepare
    const store = new CountingStore();
    const { budget, slept } = budgetOn(store);
    // Act: 100 tokens of burst, then 10 at 50 qps.
    for (let i = 0; i < 110; i++) await budget.acquire('c', ceiling);
    const usage = budget.takeUsage('c');
    // Assess
    expect(usage.throttled).toBe(0);
    expect(usage.waitMs).toBe(slept.reduce((a, b) => a + b, 0));
    expect(usage.waitMs).toBeGreaterThanOrEqual(200);
    expect(budget.takeUsage('c')).toEqual({ throttled: 0, waitMs: 0 });
  });

  it('keeps a signal the store failed to take, and writes it with the next claim', async () => {
    // Prepare
    const store = new CountingStore();
    const { budget } = budgetOn(store);
    await budget.acquire('c', ceiling);
    store.failing = true;
    // Act: the fold fails; report still resolves.
    await budget.report('c', ceiling, {
      latencyMs: 3,
      congestion: 'serverError',
    });
    const rateWhileDown = store.rate('c');
    store.failing = false;
    for (let i = 0; i < 5; i++) await budget.acquire('c', ceiling);
    // Assess
    expect(rateWhileDown).toBe(50);
    expect(store.rate('c')).toBeCloseTo(35);
  });

  it('fails a request that would wait past MAX_BUDGET_WAIT_MS for a Retry-After, without sleeping', async () => {
    // Prepare
    const store = new CountingStore();
    const { budget, slept } = budgetOn(store);
    await budget.acquire('c', ceiling);
    await budget.report('c', ceiling, {
      latencyMs: 3,
      congestion: 'throttled',
      retryAfterMs: 30_000,
    });
    slept.length = 0;
    // Act
    const error = await budget.acquire('c', ceiling).catch((e: unknown) => e);
    // Assess
    expect((error as Error).name).toBe('RequestBudgetExhaustedError');
    expect(slept).toEqual([]);
  });
});

describe('SharedRequestBudget across skewed clocks', () => {
  it('cost: a container whose clock is behind the writer’s claims the tokens left with one read each, not a spin (campaign seed 110019)', async () => {
    // Prepare: one time, two containers; the writer's clock 1 s ahead.
    const store = new CountingStore();
    const time = new FakeClock();
    const slept: number[] = [];
    const sleep = async (ms: number) => {
      slept.push(ms);
      time.step(Math.max(0, ms)); // as setTimeout takes a negative delay
    };
    const ahead = new SharedRequestBudget({
      store,
      clock: { now: () => time.now() + 1_000 },
      sleep,
    });
    const behind = new SharedRequestBudget({ store, clock: time, sleep });
    await ahead.acquire('c', ceiling);
    store.reads = 0;
    store.maxReads = 50;
    // Act: 20 requests, four chunks of 5 of the 95 tokens left.
    for (let i = 0; i < 20; i++) await behind.acquire('c', ceiling);
    // Assess
    expect({ reads: store.reads, slept }).toEqual({ reads: 4, slept: [] });
    expect(store.states.get('c')?.state.tokens).toBe(75);
  });
});

describe('MemoryRequestBudget', () => {
  it('paces a cluster in memory for the local run', async () => {
    // Prepare
    const clock = new FakeClock();
    const slept: number[] = [];
    const budget = new MemoryRequestBudget({
      clock,
      sleep: async (ms) => {
        slept.push(ms);
        clock.step(ms);
      },
    });
    // Act: a 10/10 ceiling: the burst, then a token per 100 ms.
    const small = { qps: 10, burst: 10 };
    for (let i = 0; i < 15; i++) await budget.acquire('c', small);
    // Assess
    expect(slept.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(500);
  });
});
