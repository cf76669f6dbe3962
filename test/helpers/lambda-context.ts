/** The Lambda context handed to handlers under test. */
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';

/** Returns a Lambda context for tests (fields as the Node.js runtime sets). */
export const lambdaContext = ({
  functionName = 'test-function',
  timeoutMs = 30_000,
  region = 'us-east-1',
}: {
  functionName?: string;
  timeoutMs?: number;
  region?: string;
} = {}): Context => {
  const deadline = Date.now() + timeoutMs;
  const unsupported = () => {
    throw new Error('callback-style context methods are not supported');
  };
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `2026/01/01/[$LATEST]${randomUUID().replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: unsupported,
    fail: unsupported,
    succeed: unsupported,
  };
};
