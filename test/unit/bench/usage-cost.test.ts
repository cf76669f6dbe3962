/**
 * A window's AWS calls and invocation times become billing units and
 * dollars at the stated prices.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ProxiedCall } from '../../bench/counting-proxy.js';
import {
  billedMs,
  functionMemoryMb,
  PRICES,
  priceUsage,
  requestsTo,
  requestUnitsOf,
  requestUnitsOfAll,
} from '../../bench/usage-cost.js';

const call = (
  action: string,
  input: unknown,
  extra: Partial<ProxiedCall> = {}
): ProxiedCall => ({
  action,
  input,
  status: 200,
  requestBytes: 200,
  responseBytes: 100,
  ...extra,
});

describe('requestUnitsOf', () => {
  it.each([
    {
      name: 'a small write is one write unit',
      c: call('UpdateItem', {}),
      units: { read: 0, write: 1 },
    },
    {
      name: 'a write is billed by its bytes when over 1 KB',
      c: call('PutItem', {}, { requestBytes: 2_500 }),
      units: { read: 0, write: 3 },
    },
    {
      name: 'a failed conditional write still bills its unit',
      c: call(
        'UpdateItem',
        {},
        { status: 400, errorType: 'ConditionalCheckFailedException' }
      ),
      units: { read: 0, write: 1 },
    },
    {
      name: 'any other failed call bills nothing',
      c: call(
        'GetItem',
        {},
        { status: 400, errorType: 'ResourceNotFoundException' }
      ),
      units: { read: 0, write: 0 },
    },
    {
      name: 'a transaction bills twice per item',
      c: call('TransactWriteItems', { TransactItems: [{}, {}] }),
      units: { read: 0, write: 4 },
    },
    {
      name: 'a strongly consistent read is one read unit',
      c: call('GetItem', { ConsistentRead: true }),
      units: { read: 1, write: 0 },
    },
    {
      name: 'an eventually consistent read is half a unit',
      c: call('GetItem', {}),
      units: { read: 0.5, write: 0 },
    },
    {
      name: 'a batch read bills each key',
      c: call('BatchGetItem', {
        RequestItems: { t: { Keys: [{}, {}, {}], ConsistentRead: true } },
      }),
      units: { read: 3, write: 0 },
    },
    {
      name: 'a batch write bills each request',
      c: call('BatchWriteItem', { RequestItems: { t: [{}, {}] } }),
      units: { read: 0, write: 2 },
    },
    {
      name: 'a query bills the data it read, per 4 KB',
      c: call('Query', { ConsistentRead: true }, { responseBytes: 9_000 }),
      units: { read: 3, write: 0 },
    },
  ])('$name', ({ c, units }) => {
    // Act
    const got = requestUnitsOf(c);
    // Assess
    expect(got).toEqual(units);
  });

  it('sums the units of many calls', () => {
    // Act
    const got = requestUnitsOfAll([
      call('UpdateItem', {}),
      call('GetItem', { ConsistentRead: true }),
      call('PutItem', {}),
    ]);
    // Assess
    expect(got).toEqual({ read: 1, write: 2 });
  });
});

describe('functionMemoryMb', () => {
  const yaml = [
    'provider:',
    '  name: aws',
    '  memorySize: 512',
    '  environment:',
    '    memorySize: 7',
    '',
    'functions:',
    '  small:',
    '    handler: a.handler',
    '    memorySize: 128',
    '    events:',
    '      - sqs:',
    '          batchSize: 10',
    '',
    '  plain:',
    '    handler: b.handler',
    '  param:',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: serverless.yml's own variable syntax (the bridge functions' memory is one)
    '    memorySize: ${param:mem}',
  ].join('\n');

  it.each([
    { name: 'reads a function’s own memorySize', fn: 'small', mb: 128 },
    { name: 'falls back to the provider’s', fn: 'plain', mb: 512 },
  ])('$name', ({ fn, mb }) => {
    // Act
    const got = functionMemoryMb(yaml, fn);
    // Assess
    expect(got).toBe(mb);
  });

  it('throws for an unknown function or a memorySize it cannot read', () => {
    // Act / Assess
    expect(() => functionMemoryMb(yaml, 'nope')).toThrow(/no function nope/);
    expect(() => functionMemoryMb(yaml, 'param')).toThrow(/not a number/);
  });

  it('reads the deployed reconcile and requeue functions', () => {
    // Prepare
    const deployed = readFileSync('serverless.yml', 'utf8');
    // Act
    const mb = ['reconcile', 'requeue'].map((f) =>
      functionMemoryMb(deployed, f)
    );
    // Assess
    expect(mb).toEqual([512, 128]);
  });
});

describe('priceUsage', () => {
  it('prices Lambda, DynamoDB and SQS by the stated formula', () => {
    // Prepare
    const usage = {
      reconcileInvocations: 4,
      reconcileBilledMs: 2_000,
      reconcileMemoryMb: 512,
      requeueInvocations: 1,
      dynamoReadUnits: 1_000,
      dynamoWriteUnits: 2_000,
      sqsFifoRequests: 10,
      sqsStandardRequests: 4,
    };
    // Act
    const cost = priceUsage(usage);
    // Assess
    expect(cost.gbSeconds).toBe(1);
    expect(cost.lambda).toBeCloseTo(
      PRICES.lambdaGbSecond + 5 * PRICES.lambdaRequest,
      12
    );
    expect(cost.dynamo).toBeCloseTo(
      1_000 * PRICES.dynamoReadUnit + 2_000 * PRICES.dynamoWriteUnit,
      12
    );
    expect(cost.sqs).toBeCloseTo(
      10 * PRICES.sqsFifoRequest + 4 * PRICES.sqsRequest,
      12
    );
    expect(cost.total).toBeCloseTo(cost.lambda + cost.dynamo + cost.sqs, 12);
  });
});

describe('billedMs', () => {
  it('rounds each invocation up to the millisecond, at least one', () => {
    // Act / Assess
    expect(billedMs([0.2, 10.01, 5])).toBe(1 + 11 + 5);
  });
});

describe('requestsTo', () => {
  it('counts the calls that name the queue', () => {
    // Prepare
    const calls = [
      call('SendMessageBatch', { QueueUrl: 'work' }),
      call('SendMessage', { QueueUrl: 'delay' }),
      call('SendMessage', { QueueUrl: 'work' }),
    ];
    // Act / Assess
    expect(requestsTo(calls, 'work')).toBe(2);
  });
});
