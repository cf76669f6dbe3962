/**
 * What a window of the emulated stack would cost on AWS: the calls the
 * counting proxies saw turned into billing units (DynamoDB request units,
 * SQS requests), the reconcile invocations' measured time into GB-seconds,
 * and all of it priced at us-east-1 list prices. Pure: the bench measures,
 * this counts and multiplies.
 */
import type { ProxiedCall } from './counting-proxy.js';

/**
 * us-east-1 list prices (USD), on-demand, free tiers ignored: Lambda arm64
 * and DynamoDB on demand as published since DynamoDB's 1 November 2024
 * on-demand cut (it halved $1.25/$0.25 per million write/read units), SQS
 * standard and FIFO. Not re-checked on the day of each run.
 */
export const PRICES = {
  lambdaGbSecond: 0.0000133334, // arm64
  lambdaRequest: 0.2 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6, // on demand
  dynamoReadUnit: 0.125 / 1e6,
  sqsRequest: 0.4 / 1e6, // standard queue
  sqsFifoRequest: 0.5 / 1e6,
  logGb: 0.5,
  metricMonth: 0.3,
};

/** Where and when PRICES were read, for the reports. */
export const PRICES_SOURCE =
  'us-east-1 list prices (aws.amazon.com/pricing; DynamoDB on demand as cut on 1 November 2024), free tiers ignored';

/** What the Serverless Framework deploys a function with when nothing says. */
const LAMBDA_DEFAULT_MEMORY_MB = 1_024;

/** Sizes one request unit covers (DynamoDB developer guide). */
const WRITE_UNIT_BYTES = 1_024;
const READ_UNIT_BYTES = 4_096;

/** DynamoDB request units one call consumes. */
export interface RequestUnits {
  read: number;
  write: number;
}

const WRITES = new Set([
  'PutItem',
  'UpdateItem',
  'DeleteItem',
  'BatchWriteItem',
  'TransactWriteItems',
]);

/** Returns how many items a DynamoDB call names (batch and transaction entries). */
const itemsOf = (call: ProxiedCall): number => {
  const input = (call.input ?? {}) as {
    RequestItems?: Record<string, { Keys?: unknown[] } | unknown[]>;
    TransactItems?: unknown[];
  };
  if (call.action === 'BatchGetItem' || call.action === 'BatchWriteItem') {
    return Object.values(input.RequestItems ?? {}).reduce<number>(
      (n, r) => n + (Array.isArray(r) ? r.length : (r.Keys?.length ?? 0)),
      0
    );
  }
  if (call.action === 'TransactWriteItems') {
    return input.TransactItems?.length ?? 0;
  }
  return 1;
};

/** Whether a read asks for strong consistency (BatchGetItem: per table). */
const isConsistent = (call: ProxiedCall): boolean => {
  const input = (call.input ?? {}) as {
    ConsistentRead?: boolean;
    RequestItems?: Record<string, { ConsistentRead?: boolean }>;
  };
  return (
    input.ConsistentRead === true ||
    Object.values(input.RequestItems ?? {}).some(
      (r) => r.ConsistentRead === true
    )
  );
};

/**
 * Returns the request units a DynamoDB call is billed, estimated from the
 * wire: one unit per item touched (a write unit covers 1 KB, a read unit
 * 4 KB strongly consistent, half a unit eventually consistent; Query and
 * Scan bill the data read, not the items), or the bytes on the wire over
 * the unit size when that is more — an upper bound, since the wire also
 * carries attribute names and expressions. Transactions bill twice.
 * Failed calls bill nothing except a failed conditional write, which
 * DynamoDB bills as a write.
 */
export const requestUnitsOf = (call: ProxiedCall): RequestUnits => {
  const isWrite = WRITES.has(call.action);
  if (
    call.status !== 200 &&
    !(isWrite && call.errorType === 'ConditionalCheckFailedException')
  ) {
    return { read: 0, write: 0 };
  }
  if (isWrite) {
    const units = Math.max(
      itemsOf(call),
      Math.ceil(call.requestBytes / WRITE_UNIT_BYTES)
    );
    const factor = call.action === 'TransactWriteItems' ? 2 : 1;
    return { read: 0, write: units * factor };
  }
  const consistent = isConsistent(call);
  const bySize = Math.max(1, Math.ceil(call.responseBytes / READ_UNIT_BYTES));
  const units =
    call.action === 'Query' || call.action === 'Scan'
      ? bySize
      : Math.max(itemsOf(call), bySize);
  return { read: units * (consistent ? 1 : 0.5), write: 0 };
};

/** Returns the request units of all `calls`. */
export const requestUnitsOfAll = (
  calls: readonly ProxiedCall[]
): RequestUnits =>
  calls.reduce(
    (sum, c) => {
      const u = requestUnitsOf(c);
      return { read: sum.read + u.read, write: sum.write + u.write };
    },
    { read: 0, write: 0 }
  );

/**
 * Returns the `memorySize` (MB) of function `name` in serverless.yml's
 * `functions:` block, or the provider's default when the function sets
 * none. A line reader, not a YAML parser: enough for this file's shape.
 */
export const functionMemoryMb = (yaml: string, name: string): number => {
  const lines = yaml.split('\n');
  /** The `memorySize` among the lines after `header`, indented by `indent`. */
  const memoryUnder = (header: string, indent: string, from = 0) => {
    const start = lines.indexOf(header, from);
    if (start === -1) return undefined;
    for (const line of lines.slice(start + 1)) {
      if (line.trim() !== '' && !line.startsWith(indent)) break;
      if (!line.startsWith(`${indent}memorySize:`)) continue;
      const mb = Number(line.split(':')[1]);
      if (!Number.isInteger(mb)) {
        throw new Error(`serverless.yml: ${header} memorySize is not a number`);
      }
      return mb;
    }
    return undefined;
  };
  const functions = lines.indexOf('functions:');
  if (functions === -1 || !lines.includes(`  ${name}:`, functions)) {
    throw new Error(`serverless.yml: no function ${name}`);
  }
  return (
    memoryUnder(`  ${name}:`, '    ', functions) ??
    memoryUnder('provider:', '  ') ??
    LAMBDA_DEFAULT_MEMORY_MB
  );
};

/** What one window of the stack used, in the units AWS bills. */
export interface StackUsage {
  reconcileInvocations: number;
  /** Σ of each reconcile invocation's time, rounded up to 1 ms each. */
  reconcileBilledMs: number;
  /** The reconcile function's memory (serverless.yml). */
  reconcileMemoryMb: number;
  /** Requeue invocations, priced as requests only (they forward timers). */
  requeueInvocations: number;
  dynamoReadUnits: number;
  dynamoWriteUnits: number;
  /** Work queue (FIFO): the product's calls, and the event-source mapping's receive and delete per invocation. */
  sqsFifoRequests: number;
  /** Delay queue (standard), counted the same way. */
  sqsStandardRequests: number;
}

/** What a StackUsage costs, in USD. */
export interface UsageCost {
  gbSeconds: number;
  lambda: number;
  dynamo: number;
  sqs: number;
  total: number;
}

/**
 * Returns the cost of `u`: Lambda (GB-s × price + invocations × request
 * price) + DynamoDB (units × unit prices) + SQS (requests × price by queue
 * type).
 */
export const priceUsage = (u: StackUsage, prices = PRICES): UsageCost => {
  const gbSeconds =
    (u.reconcileBilledMs / 1_000) * (u.reconcileMemoryMb / 1_024);
  const lambda =
    gbSeconds * prices.lambdaGbSecond +
    (u.reconcileInvocations + u.requeueInvocations) * prices.lambdaRequest;
  const dynamo =
    u.dynamoReadUnits * prices.dynamoReadUnit +
    u.dynamoWriteUnits * prices.dynamoWriteUnit;
  const sqs =
    u.sqsFifoRequests * prices.sqsFifoRequest +
    u.sqsStandardRequests * prices.sqsRequest;
  return { gbSeconds, lambda, dynamo, sqs, total: lambda + dynamo + sqs };
};

/** Returns the SQS requests the product sent to `queueUrl`. */
export const requestsTo = (
  calls: readonly ProxiedCall[],
  queueUrl: string
): number =>
  calls.filter(
    (c) => (c.input as { QueueUrl?: string } | undefined)?.QueueUrl === queueUrl
  ).length;

/**
 * Requests the event-source mapping makes per invocation: the receive that
 * returned the batch and the delete of its messages. Its empty long polls
 * run whatever happens (the idle cost), so they are not counted here.
 */
export const ESM_REQUESTS_PER_INVOCATION = 2;

/** Returns the billed ms of invocations that took `durationsMs` (each rounded up to 1 ms). */
export const billedMs = (durationsMs: readonly number[]): number =>
  durationsMs.reduce((a, ms) => a + Math.max(1, Math.ceil(ms)), 0);
