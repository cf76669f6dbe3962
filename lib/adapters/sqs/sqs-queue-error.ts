/** The error the SQS adapters throw when SQS itself fails. */
import { AwsCallError, wrappingCalls } from '../aws/aws-call-error.js';

/**
 * An SQS call failed (throttling, network, missing queue); the SDK error is
 * kept on `cause` so no SDK type leaves lib/adapters/. Callers retry what
 * they were doing, as for any other ReconcilerError.
 */
export class SqsQueueError extends AwsCallError {
  constructor(operation: string, options?: ErrorOptions) {
    super('SQS', operation, options);
    this.name = 'SqsQueueError';
  }
}

/**
 * Returns the result of `call`; any error becomes an SqsQueueError naming
 * `operation`.
 */
export const callSqs = wrappingCalls(SqsQueueError);
