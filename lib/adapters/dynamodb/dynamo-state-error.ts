/** The error DynamoDB state adapters throw when DynamoDB itself fails. */
import { AwsCallError } from '../aws/aws-call-error.js';

/** SDK error names that mean "slow down and retry" (throttling). */
const THROTTLING_ERRORS: ReadonlySet<string> = new Set([
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ThrottlingException',
  'UnprocessedKeysError',
]);

/**
 * BatchGetItem kept leaving keys unprocessed (DynamoDB's way of throttling
 * a batch); a DynamoStateError with this cause counts as throttled.
 */
export class UnprocessedKeysError extends Error {
  constructor(keys: number, rounds: number) {
    super(`${keys} keys still unprocessed after ${rounds} rounds`);
    this.name = 'UnprocessedKeysError';
  }
}

/**
 * A DynamoDB call failed (throttling, network, validation); the SDK error is
 * kept on `cause` so no SDK type leaves lib/adapters/. Callers retry the
 * whole sync, as for any other ReconcilerError.
 */
export class DynamoStateError extends AwsCallError {
  /** Whether DynamoDB throttled the call (worth a longer backoff). */
  readonly throttled: boolean;

  constructor(operation: string, options?: ErrorOptions) {
    super('DynamoDB', operation, options);
    this.name = 'DynamoStateError';
    const cause = options?.cause;
    this.throttled =
      cause instanceof Error && THROTTLING_ERRORS.has(cause.name);
  }
}
