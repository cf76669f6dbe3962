/**
 * DynamoRequestBudget against DynamoDB Local: two containers share one
 * cluster's bucket; time is a fake clock that the budget's sleep advances.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoRequestBudget } from '#lib/adapters/dynamodb/dynamo-request-budget.js';
import { RequestBudgetExhaustedError } from '#lib/errors.js';
import {
  createTestTable,
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
    await writeItem(table, 'budget#c9', {
      tokens: { N: '-300' },
      atMs: { N: String(clock.now()) },
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
});
