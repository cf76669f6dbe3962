/**
 * batchGetItems against DynamoDB Local, with the unprocessed keys real
 * DynamoDB leaves when it throttles a batch made by an SDK middleware
 * (DynamoDB Local never leaves any): keys asked again after a doubling
 * backoff, and a read that fails as throttled, not a loop, when they stay.
 */
import type {
  BatchGetItemCommandInput,
  BatchGetItemCommandOutput,
} from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import {
  batchGetItems,
  MAX_UNPROCESSED_ROUNDS,
} from '#lib/adapters/dynamodb/dynamo-call.js';
import { DynamoStateError } from '#lib/adapters/dynamodb/dynamo-state-error.js';
import {
  createTestTable,
  type TestTable,
  writeItem,
} from '#test/helpers/dynamo-table.js';

let table: TestTable;
/** BatchGetItem answers still to turn into "all unprocessed". */
let throttledAnswers = 0;
let batchGets = 0;

beforeAll(async () => {
  table = await createTestTable(inject('dynamodbEndpoint'));
  table.client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (context.commandName !== 'BatchGetItemCommand') return result;
      batchGets++;
      if (throttledAnswers === 0) return result;
      throttledAnswers--;
      const input = args.input as BatchGetItemCommandInput;
      const output = result.output as BatchGetItemCommandOutput;
      output.Responses = { [table.tableName]: [] };
      output.UnprocessedKeys = input.RequestItems;
      return result;
    },
    { step: 'initialize', name: 'leaveKeysUnprocessed' }
  );
  for (let i = 0; i < 3; i++) {
    await writeItem(table, `k${i}`, { n: { N: String(i) } });
  }
});
afterAll(() => {
  table.client.destroy();
});

const recordedSleeps = () => {
  const slept: number[] = [];
  return { slept, sleep: async (ms: number) => void slept.push(ms) };
};

describe('batchGetItems', () => {
  it('asks again for keys DynamoDB left unprocessed, after a doubling backoff, and returns every item', async () => {
    // Prepare: the first two answers leave every key unprocessed.
    throttledAnswers = 2;
    batchGets = 0;
    const { slept, sleep } = recordedSleeps();
    // Act
    const items = await batchGetItems(
      table.client,
      table.tableName,
      ['k0', 'k1', 'k2', 'absent'],
      true,
      sleep
    );
    // Assess
    expect([...items.keys()].sort()).toEqual(['k0', 'k1', 'k2']);
    expect(batchGets).toBe(3);
    expect(slept).toHaveLength(2);
    expect(slept[0]).toBeLessThanOrEqual(50);
    expect(slept[1]).toBeLessThanOrEqual(100);
  });

  it('fails as throttled after MAX_UNPROCESSED_ROUNDS asks when the keys stay unprocessed (no storm of asks)', async () => {
    // Prepare: every answer leaves every key unprocessed.
    throttledAnswers = Number.POSITIVE_INFINITY;
    batchGets = 0;
    const { slept, sleep } = recordedSleeps();
    // Act
    const error = await batchGetItems(
      table.client,
      table.tableName,
      ['k0', 'k1'],
      true,
      sleep
    ).catch((e: unknown) => new DynamoStateError('peek', { cause: e }));
    throttledAnswers = 0;
    // Assess
    expect(error).toBeInstanceOf(DynamoStateError);
    expect((error as DynamoStateError).throttled).toBe(true);
    expect((error as DynamoStateError).message).toContain(
      `2 keys still unprocessed after ${MAX_UNPROCESSED_ROUNDS} rounds`
    );
    expect(batchGets).toBe(MAX_UNPROCESSED_ROUNDS);
    expect(slept).toHaveLength(MAX_UNPROCESSED_ROUNDS - 1);
  });
});
