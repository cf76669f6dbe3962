/**
 * The shape of every AWS adapter's error: what was being attempted, with the
 * SDK error kept on `cause` so no SDK type leaves lib/adapters/; and the one
 * way calls are wrapped into it.
 */
import { ReconcilerError } from '../../errors.js';

/** An AWS call failed; callers retry what they were doing. */
export class AwsCallError extends ReconcilerError {
  /** What was being attempted, e.g. `markDirty q#c/ns/ds`. */
  readonly operation: string;

  constructor(service: string, operation: string, options?: ErrorOptions) {
    const cause = options?.cause;
    const detail =
      cause instanceof Error ? `: ${cause.name}: ${cause.message}` : '';
    super(`${service} ${operation} failed${detail}`, options);
    this.operation = operation;
  }
}

/**
 * Returns a caller that runs `call` and turns any error that is not already
 * an `ErrorClass` into one naming `operation`.
 */
export const wrappingCalls =
  <E extends AwsCallError>(
    ErrorClass: new (operation: string, options?: ErrorOptions) => E
  ) =>
  async <T>(operation: string, call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (e) {
      if (e instanceof ErrorClass) throw e;
      throw new ErrorClass(operation, { cause: e });
    }
  };
