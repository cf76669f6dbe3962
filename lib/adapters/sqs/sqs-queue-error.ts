/** The error the SQS adapters throw when SQS itself fails. */
import { ReconcilerError } from '../../errors.js';

/**
 * An SQS call failed (throttling, network, missing queue); the SDK error is
 * kept on `cause` so no SDK type leaves lib/adapters/. Callers retry what
 * they were doing, as for any other ReconcilerError.
 */
export class SqsQueueError extends ReconcilerError {
  /** What was being attempted, e.g. `send c/ns/ds to the work queue`. */
  readonly operation: string;

  constructor(operation: string, options?: ErrorOptions) {
    const cause = options?.cause;
    const detail =
      cause instanceof Error ? `: ${cause.name}: ${cause.message}` : '';
    super(`SQS ${operation} failed${detail}`, options);
    this.name = 'SqsQueueError';
    this.operation = operation;
  }
}

/**
 * Returns the result of `call`; any error becomes an SqsQueueError naming
 * `operation`.
 */
export const callSqs = async <T>(
  operation: string,
  call: () => Promise<T>
): Promise<T> => {
  try {
    return await call();
  } catch (e) {
    if (e instanceof SqsQueueError) throw e;
    throw new SqsQueueError(operation, { cause: e });
  }
};
