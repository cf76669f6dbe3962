/**
 * The cost invariant (`--cost-factor`): which counts it bounds, and the
 * DynamoDB breakdown a violation prints, so that a run whose calls grew
 * says which calls grew.
 */
import { describe, expect, it } from 'vitest';
import type { ProxiedCall } from '../../bench/counting-proxy.js';
import {
  dynamodbCallKind,
  dynamodbCallKinds,
  grownKinds,
} from '../../campaign/dynamodb-call-kinds.js';
import { costViolations } from '../../campaign/run-campaign.js';
import {
  harnessFailure,
  planOf,
  type RunCost,
  type RunResult,
} from '../../campaign/run-types.js';

const call = (
  action: string,
  input: unknown,
  errorType?: string
): ProxiedCall => ({
  action,
  input,
  status: errorType === undefined ? 200 : 400,
  ...(errorType === undefined ? {} : { errorType }),
  requestBytes: 0,
  responseBytes: 0,
});

const options = {
  seed: 1,
  nodes: 5,
  daemonSets: 2,
  faultMs: 20_000,
  convergeTimeoutMs: 120_000,
};

const runCosting = (cost: Partial<RunCost>): RunResult => ({
  ...harnessFailure(options, planOf(options), 'unused', 0),
  cost: {
    apiRequests: 100,
    dynamodbCalls: 100,
    dynamodbCallKinds: {},
    sqsCalls: 100,
    reconcileInvocations: 1,
    ...cost,
  },
});

describe('dynamodbCallKind', () => {
  it('names the operation and the item kinds its partition keys belong to', () => {
    // Assess
    expect(
      dynamodbCallKind(call('GetItem', { Key: { pk: { S: 'q#c1/ns/ds' } } }))
    ).toBe('GetItem q');
    expect(
      dynamodbCallKind(
        call('TransactWriteItems', {
          TransactItems: [
            { Update: { Key: { pk: { S: 'q#c1/ns/ds' } } } },
            { Put: { Item: { pk: { S: 'exp#c1/ns/ds' }, n: { N: '1' } } } },
          ],
        })
      )
    ).toBe('TransactWriteItems exp+q');
    expect(
      dynamodbCallKind(
        call(
          'UpdateItem',
          { Key: { pk: { S: 'budget#c1' } } },
          'ConditionalCheckFailedException'
        )
      )
    ).toBe('UpdateItem budget (ConditionalCheckFailedException)');
    expect(dynamodbCallKind(call('Query', { IndexName: 'registry' }))).toBe(
      'Query'
    );
  });

  it('counts calls by kind', () => {
    // Arrange
    const get = call('GetItem', { Key: { pk: { S: 'q#a' } } });
    const put = call('PutItem', { Item: { pk: { S: 'lease#c1' } } });

    // Act
    const kinds = dynamodbCallKinds([get, get, put]);

    // Assess
    expect(kinds).toEqual({ 'GetItem q': 2, 'PutItem lease': 1 });
  });
});

describe('costViolations', () => {
  it('passes a run within the factor of its fault-free baseline', () => {
    // Act
    const found = costViolations(
      runCosting({ apiRequests: 400, dynamodbCalls: 400, sqsCalls: 400 }),
      runCosting({}),
      4
    );

    // Assess
    expect(found).toEqual([]);
  });

  it('reports each count past the factor, and for DynamoDB the kinds that grew most', () => {
    // Arrange
    const run = runCosting({
      apiRequests: 401,
      dynamodbCalls: 1_000,
      dynamodbCallKinds: {
        'GetItem q': 900,
        'UpdateItem exp': 60,
        'PutItem lease': 40,
      },
    });
    const baseline = runCosting({
      dynamodbCallKinds: {
        'GetItem q': 10,
        'UpdateItem exp': 50,
        'PutItem lease': 40,
      },
    });

    // Act
    const found = costViolations(run, baseline, 4);

    // Assess
    expect(found.map((v) => v.invariant)).toEqual([
      'cost-within-factor',
      'cost-within-factor',
    ]);
    expect(found[0]?.detail).toBe(
      "apiRequests 401 is 4.0x the fault-free run's 100 (limit 4x)"
    );
    expect(found[1]?.detail).toBe(
      "dynamodbCalls 1000 is 10.0x the fault-free run's 100 (limit 4x); grew most: GetItem q +890 (900 against 10), UpdateItem exp +10 (60 against 50)"
    );
  });
});

describe('grownKinds', () => {
  it('lists at most `top` kinds, the largest growth first, new kinds against 0', () => {
    // Act
    const grown = grownKinds({ a: 5, b: 9, c: 3, d: 1 }, { b: 1, c: 3 }, 2);

    // Assess
    expect(grown).toEqual(['b +8 (9 against 1)', 'a +5 (5 against 0)']);
  });
});
