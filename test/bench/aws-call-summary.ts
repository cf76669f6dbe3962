/** Sums up the AWS calls a counting proxy recorded during one bench run. */
import type { ProxiedCall } from './counting-proxy.js';

/** What the product asked of SQS and DynamoDB in one window. */
export interface AwsCallSummary {
  /** Messages sent (SendMessage, plus each entry of a SendMessageBatch). */
  workMessages: number;
  delayMessages: number;
  /** SQS calls by operation. */
  sqsCalls: Map<string, number>;
  /** DynamoDB calls by `Operation item-kind` (kind = partition-key prefix). */
  dynamoCalls: Map<string, number>;
  /** DynamoDB calls answered with an error, by `Operation ErrorType`. */
  dynamoErrors: Map<string, number>;
  dynamoTotal: number;
}

const add = (m: Map<string, number>, key: string, n = 1) =>
  m.set(key, (m.get(key) ?? 0) + n);

/**
 * Returns the partition-key prefix of the (first) item a DynamoDB request
 * names, e.g. `q#`, `exp#`, `lease#` (lib/adapters/dynamodb/table-schema.ts),
 * or `-` when it names none (Scan).
 */
export const itemKind = (input: unknown): string =>
  /"pk":\{"S":"([^"#]*#)/.exec(JSON.stringify(input ?? {}))?.[1] ?? '-';

/** Returns how many messages a successful SQS send call carried. */
const messagesSent = (call: ProxiedCall): number => {
  if (call.status !== 200) return 0;
  if (call.action === 'SendMessage') return 1;
  if (call.action === 'SendMessageBatch') {
    const entries = (call.input as { Entries?: unknown[] } | undefined)
      ?.Entries;
    return entries?.length ?? 0;
  }
  return 0;
};

/** Returns the summary of `sqs` and `dynamo` calls for the given queues. */
export const summariseAwsCalls = (
  sqs: readonly ProxiedCall[],
  dynamo: readonly ProxiedCall[],
  queues: { workUrl: string; delayUrl: string }
): AwsCallSummary => {
  const summary: AwsCallSummary = {
    workMessages: 0,
    delayMessages: 0,
    sqsCalls: new Map(),
    dynamoCalls: new Map(),
    dynamoErrors: new Map(),
    dynamoTotal: dynamo.length,
  };
  for (const call of sqs) {
    add(summary.sqsCalls, call.action);
    const url = (call.input as { QueueUrl?: string } | undefined)?.QueueUrl;
    const n = messagesSent(call);
    if (url === queues.workUrl) summary.workMessages += n;
    else if (url === queues.delayUrl) summary.delayMessages += n;
  }
  for (const call of dynamo) {
    add(summary.dynamoCalls, `${call.action} ${itemKind(call.input)}`);
    if (call.status !== 200) {
      add(
        summary.dynamoErrors,
        `${call.action} ${call.errorType ?? call.status}`
      );
    }
  }
  return summary;
};
