/**
 * Typed errors of the reconciler. Every error carries what was being attempted;
 * the cause is kept on `cause` (Powertools convention).
 */

/** Base class of every error this project throws on purpose. */
export class ReconcilerError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ReconcilerError';
  }
}

/** A sync must not be retried: log it, acknowledge the message, move on. */
export class TerminalError extends ReconcilerError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'TerminalError';
  }
}

/** A sync step failed; the message is retried with per-key backoff. */
export class SyncError extends ReconcilerError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'SyncError';
  }
}

/**
 * A sync's expectations write failed with an unknown outcome and could not be
 * undone: they may expect writes that will never come. The attempt is left
 * to fail as a dead one (its message redelivered, and a redelivered attempt
 * drops the key's expectations) instead of being retried with them.
 */
export class UnsettledExpectationsError extends ReconcilerError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UnsettledExpectationsError';
  }
}

/** An object from the cluster breaks an invariant the API server enforces. */
export class InvalidObjectError extends ReconcilerError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'InvalidObjectError';
  }
}

/** The reasons of Kubernetes API errors the sync core branches on. */
export const ApiErrorReason = {
  NotFound: 'NotFound',
  AlreadyExists: 'AlreadyExists',
  Conflict: 'Conflict',
  Invalid: 'Invalid',
  Gone: 'Gone',
  TooManyRequests: 'TooManyRequests',
  Unauthorized: 'Unauthorized',
  Forbidden: 'Forbidden',
  ServerError: 'ServerError',
  /** No HTTP answer: connection refused, reset, TLS failure or timeout. */
  Unreachable: 'Unreachable',
  Unknown: 'Unknown',
} as const;
export type ApiErrorReason =
  (typeof ApiErrorReason)[keyof typeof ApiErrorReason];

/** Status cause upstream ignores on pod create (`v1.NamespaceTerminatingCause`). */
export const NAMESPACE_TERMINATING_CAUSE = 'NamespaceTerminating';

/** An error answered by the Kubernetes API server, translated by an adapter. */
export class KubeApiError extends ReconcilerError {
  readonly reason: ApiErrorReason;
  readonly statusCode: number;
  /** `details.causes[].reason` values of the Status object. */
  readonly causes: readonly string[];
  /** Seconds the server asked us to wait (Retry-After), if any. */
  readonly retryAfterSeconds: number | undefined;
  /**
   * Whether the request wrote (POST, PUT, PATCH, DELETE): a write can fail
   * for its object alone (an admission webhook), a read only for the server.
   */
  readonly write: boolean;
  /** The Status object's own message, as kubectl prints it. */
  readonly serverMessage: string | undefined;

  constructor(
    message: string,
    fields: {
      reason: ApiErrorReason;
      statusCode: number;
      causes?: readonly string[];
      retryAfterSeconds?: number;
      write?: boolean;
      serverMessage?: string;
    },
    options?: ErrorOptions
  ) {
    super(message, options);
    this.name = 'KubeApiError';
    this.reason = fields.reason;
    this.statusCode = fields.statusCode;
    this.causes = fields.causes ?? [];
    this.retryAfterSeconds = fields.retryAfterSeconds;
    this.write = fields.write ?? false;
    this.serverMessage = fields.serverMessage;
  }
}

/**
 * Returns whether a failed write may still have been applied: no answer came
 * (the connection reset or timed out after the request went out) or the
 * server failed (a 5xx, which may be a timeout after the commit). A refusal
 * (4xx) was not applied.
 */
export const mayHaveBeenApplied = (e: unknown): boolean =>
  (e instanceof KubeApiError &&
    (e.reason === ApiErrorReason.Unreachable ||
      e.reason === ApiErrorReason.ServerError)) ||
  (e instanceof SyncDeadlineError && e.unanswered);

/**
 * A sync passed its deadline: a call refused before it started, or a
 * request aborted while under way (`unanswered`: it went out, and a write
 * may have been applied). Retried like any failed sync; never the
 * cluster's fault, so the breaker ignores it.
 */
export class SyncDeadlineError extends ReconcilerError {
  readonly unanswered: boolean;

  constructor(what: string, options: { unanswered?: boolean } = {}) {
    super(
      options.unanswered
        ? `sync deadline passed during ${what}; the key is requeued`
        : `sync deadline passed before ${what}; the key is requeued`
    );
    this.name = 'SyncDeadlineError';
    this.unanswered = options.unanswered ?? false;
  }
}

/** Returns whether `e` is an API error with the given reason. */
export const isApiError = (e: unknown, reason: ApiErrorReason): boolean =>
  e instanceof KubeApiError && e.reason === reason;

/** The cause reason of a watch from a resourceVersion the server has not reached. */
const TOO_LARGE_RESOURCE_VERSION = 'ResourceVersionTooLarge';

/**
 * Returns whether a watch must list again: 410 Gone (its version was
 * compacted away), or a version ahead of the server (an etcd restore).
 */
export const mustRelist = (e: unknown): boolean =>
  isApiError(e, ApiErrorReason.Gone) ||
  (e instanceof KubeApiError && e.causes.includes(TOO_LARGE_RESOURCE_VERSION));

/** Returns whether the API refused because the namespace is being deleted. */
export const hasNamespaceTerminatingCause = (e: unknown): boolean =>
  e instanceof KubeApiError && e.causes.includes(NAMESPACE_TERMINATING_CAUSE);

/** Narrows an unknown catch value to an Error, wrapping anything else. */
export function assertIsError(e: unknown): asserts e is Error {
  if (!(e instanceof Error)) {
    throw new ReconcilerError(`non-error thrown: ${String(e)}`);
  }
}

/** Returns `e` as an Error (non-errors are wrapped). */
export const toError = (e: unknown): Error =>
  e instanceof Error ? e : new ReconcilerError(String(e));

/** A bridge's lease on its cluster was taken over; it must stop at once. */
export class BridgeLeaseLostError extends ReconcilerError {
  readonly cluster: string;
  constructor(cluster: string, options?: ErrorOptions) {
    super(`lease on cluster ${cluster} lost to another bridge`, options);
    this.name = 'BridgeLeaseLostError';
    this.cluster = cluster;
  }
}

/** The configuration is missing or invalid; lists every problem at once. */
export class ConfigError extends ReconcilerError {
  readonly problems: readonly string[];
  constructor(problems: readonly string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** A queue message that can never be processed (bad body, unknown cluster). */
export class PoisonMessageError extends TerminalError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'PoisonMessageError';
  }
}

/**
 * A request would wait longer than allowed for its cluster's shared API
 * budget (the cluster is busy, not failing): the sync fails and is retried
 * with the key's backoff instead of holding a reconciler asleep.
 */
export class RequestBudgetExhaustedError extends ReconcilerError {
  constructor(cluster: string, waitMs: number) {
    super(
      `the API budget of cluster ${cluster} has no token for ${waitMs} ms; the sync is retried later`
    );
    this.name = 'RequestBudgetExhaustedError';
  }
}

/** A bridge invocation's event is not a bridge turn: nothing runs. */
export class InvalidBridgeTurnError extends TerminalError {
  constructor(problem: string) {
    super(`invalid bridge turn: ${problem}`);
    this.name = 'InvalidBridgeTurnError';
  }
}

/**
 * A watch event nothing can be done with, whatever the retries: it does not
 * decode, or its object makes the bridge's handler throw. The watch retries
 * it a few times with backoff, then skips it (lib/bridge/poison-events.ts);
 * any other failure is retried until it passes.
 */
export class UnreadableEventError extends ReconcilerError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'UnreadableEventError';
  }
}
