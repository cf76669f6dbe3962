/**
 * DynamoRequestBudget against DynamoDB Local: two containers share one
 * cluster's bucket and its adaptive rate; time is a fake clock that the
 * budget's sleep advances.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoRequestBudget } from '#lib/adapters/dynamodb/dynamo-request-budget.js';
import { RequestBudgetExhaustedError } from '#lib/errors.js';
import {
  createTestTable,
  readItem,
  type TestTable,
  writeItem,
} from '../helpers/dynamo-table.js';
import { FakeClock } from '../helpers/fakes/fake-clock.js';

describe('DynamoRequestBudget', () => {
  let table: TestTable;
  const budget = { qps: 10, burst: 10 };

  beforeAll(async () => {
    table = await createTestTable(inject('dynamodbEndpoint'));
  });
  afterAll(() => table.client.destroy());

  const container = (clock: FakeClock, slept: number[]) =>
    new DynamoRequestBudget({
      ...table,
      clock,
      sleep: async (ms) => {
        slept.push(ms);
        clock.step(ms);
      },
    });

  it('lets a burst through, then paces at qps', async () => {
    // Prepare
    const clock = new FakeClock();
    const slept: number[] = [];
    const b = container(clock, slept);
    // Act
    for (let i = 0; i < 10; i++) await b.acquire('c1', budget);
    const burstSlept = slept.length;
    for (let i = 0; i < 5; i++) await b.acquire('c1', budget);
    // Assess: 5 more tokens take 0.5 s at 10 qps.
    expect(burstSlept).toBe(0);
    expect(slept.reduce((a, x) => a + x, 0)).toBeGreaterThanOrEqual(500);
  });

  it('shares one bucket between containers of the same cluster', async () => {
    // Prepare
    const clock = new FakeClock();
    const sleptA: number[] = [];
    const sleptB: number[] = [];
    const a = container(clock, sleptA);
    const b = container(clock, sleptB);
    // Act: A spends the burst; B then has to wait for refills.
    for (let i = 0; i < 10; i++) await a.acquire('c2', budget);
    await b.acquire('c2', budget);
    // Assess
    expect(sleptA).toEqual([]);
    expect(sleptB.length).toBeGreaterThan(0);
  });

  it('keeps clusters apart', async () => {
    // Prepare
    const clock = new FakeClock();
    const slept: number[] = [];
    const b = container(clock, slept);
    for (let i = 0; i < 10; i++) await b.acquire('c3', budget);
    // Act
    await b.acquire('c4', budget);
    // Assess
    expect(slept).toEqual([]);
  });

  it('hands out every token of concurrent acquires exactly once', async () => {
    // Prepare
    const clock = new FakeClock();
    const b = container(clock, []);
    // Act
    await Promise.all(
      Array.from({ length: 10 }, () => b.acquire('c5', budget))
    );
    // Assess: the burst is spent; one more token needs a refill.
    const slept: number[] = [];
    await container(clock, slept).acquire('c5', budget);
    expect(slept.length).toBeGreaterThan(0);
  });

  it('fails a request that would wait longer than MAX_BUDGET_WAIT_MS, without sleeping that long (F2)', async () => {
    // Prepare: other containers drained the bucket 30 s deep.
    const clock = new FakeClock();
    const now = { N: String(clock.now()) };
    await writeItem(table, 'budget#c9', {
      tokens: { N: '-300' },
      atMs: now,
      rateQps: { N: '10' },
      thresholdQps: { N: '10' },
      intervalStartMs: now,
      granted: { N: '0' },
      cutAtMs: { N: '0' },
      v: { N: '7' },
    });
    const slept: number[] = [];
    const b = container(clock, slept);
    // Act
    const error = await b.acquire('c9', budget).catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(RequestBudgetExhaustedError);
    expect((error as Error).message).toContain('cluster c9');
    expect(slept).toEqual([]);
  });
  describe('the adaptive rate', () => {
    const ceiling = { qps: 400, burst: 800 };
    const rateOf = async (cluster: string) =>
      Number((await readItem(table, `budget#${cluster}`))?.rateQps?.N);

    it('never hands the same tokens to two containers (conditional claims)', async () => {
      // Prepare
      const clock = new FakeClock();
      const start = clock.now();
      const a = container(clock, []);
      const b = container(clock, []);
      // Act: 20 tokens at once, from a bucket of 10 at 10 qps.
      await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? a : b).acquire('r1', budget)
        )
      );
      // Assess: the other 10 had to be refilled.
      expect(clock.now() - start).toBeGreaterThanOrEqual(1_000);
    });

    it('raises a busy cluster’s shared rate each second (slow start)', async () => {
      // Prepare
      const clock = new FakeClock();
      const start = clock.now();
      const a = container(clock, []);
      const b = container(clock, []);
      // Act: both as busy as the budget lets them be, for 3.5 s.
      while (clock.now() - start < 3_500) {
        await a.acquire('r2', ceiling);
        await b.acquire('r2', ceiling);
      }
      // Assess: 50 → 100 → 200 → 400.
      expect(await rateOf('r2')).toBe(400);
    });

    it('slows both containers when one sees a 429: half the rate, nothing until its Retry-After', async () => {
      // Prepare: both have sent requests at 50 qps.
      const clock = new FakeClock();
      const sleptB: number[] = [];
      const a = container(clock, []);
      const b = container(clock, sleptB);
      for (let i = 0; i < 5; i++) {
        await a.acquire('r3', ceiling);
        await b.acquire('r3', ceiling);
      }
      const before = await rateOf('r3');
      // Act: A's request is refused with Retry-After: 1.
      await a.report('r3', ceiling, {
        latencyMs: 4,
        congestion: 'throttled',
        retryAfterMs: 1_000,
      });
      const reportedAt = clock.now();
      const cut = await rateOf('r3');
      await b.acquire('r3', ceiling);
      const bWaitedMs = clock.now() - reportedAt;
      const startB = clock.now();
      for (let i = 0; i < 25; i++) await b.acquire('r3', ceiling);
      // Assess: B, which saw no 429, waited out the Retry-After and then
      // got 25 tokens in a second (25 qps), not in half of one (50 qps).
      expect(before).toBe(50);
      expect(cut).toBe(25);
      expect(bWaitedMs).toBeGreaterThanOrEqual(900);
      expect(clock.now() - startB).toBeGreaterThanOrEqual(900);
      expect(a.takeUsage('r3').throttled).toBe(1);
      expect(b.takeUsage('r3').throttled).toBe(0);
    });

    it('takes over a bucket of the fixed budget (no version, no rate) and starts it anew', async () => {
      // Prepare
      const clock = new FakeClock();
      await writeItem(table, 'budget#r4', {
        tokens: { N: '0' },
        atMs: { N: String(clock.now()) },
      });
      const slept: number[] = [];
      // Act
      await container(clock, slept).acquire('r4', ceiling);
      // Assess
      const item = await readItem(table, 'budget#r4');
      expect(slept).toEqual([]);
      expect(item?.rateQps?.N).toBe('50');
      expect(item?.v?.N).toBe('1');
    });
  });
});
