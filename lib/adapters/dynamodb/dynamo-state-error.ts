/** The error DynamoDB state adapters throw when DynamoDB itself fails. */
import { ReconcilerError } from '../../errors.js';

/** SDK error names that mean "slow down and retry" (throttling). */
const THROTTLING_ERRORS: ReadonlySet<string> = new Set([
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'ThrottlingException',
]);

/**
 * A DynamoDB call failed (throttling, network, validation); the SDK error is
 * kept on `cause` so no SDK type leaves lib/adapters/. Callers retry the
 * whole sync, as for any other ReconcilerError.
 */
export class DynamoStateError extends ReconcilerError {
  /** What was being attempted, e.g. `markDirty q#c/ns/ds`. */
  readonly operation: string;
  /** Whether DynamoDB throttled the call (worth a longer backoff). */
  readonly throttled: boolean;

  constructor(operation: string, options?: ErrorOptions) {
    const cause = options?.cause;
    const detail =
      cause instanceof Error ? `: ${cause.name}: ${cause.message}` : '';
    super(`DynamoDB ${operation} failed${detail}`, options);
    this.name = 'DynamoStateError';
    this.operation = operation;
    this.throttled =
      cause instanceof Error && THROTTLING_ERRORS.has(cause.name);
  }
}
