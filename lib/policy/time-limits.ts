/**
 * How long each part of a reconcile invocation may take, in one place so
 * the margin between a batch's sync deadline and the function's timeout
 * adds up. At the deadline a sync's Kubernetes requests are aborted and its
 * Event flush stops (lib/worker/sync-deadline.ts); what may still run is a
 * budget wait begun just before it (its request is then refused at once)
 * and the settling of the records: table and queue calls, one of which may
 * be under way.
 */

/**
 * The longest one request waits for a token: a busy cluster's sync then
 * fails and backs off instead of holding a reconciler asleep.
 */
export const MAX_BUDGET_WAIT_MS = 10_000;

/**
 * One attempt of an AWS SDK call (DynamoDB, SQS, STS, …) gives up after
 * this: their answers take milliseconds, and a call hung on a dead socket
 * would otherwise hold the invocation to its timeout.
 */
export const AWS_REQUEST_TIMEOUT_MS = 3_000;

/** An AWS SDK connection (TCP and TLS, in-region) gives up after this. */
export const AWS_CONNECTION_TIMEOUT_MS = 1_000;

/**
 * The records' settling after the deadline, beyond one slow call: a few
 * table and queue calls (failure count, timer, slot release), tens of
 * milliseconds each.
 */
export const SETTLE_MS = 2_000;

/**
 * Time kept back from the invocation's remaining time when a batch's syncs
 * get their deadline: a budget wait begun just before it, one AWS call
 * under way, and the settling.
 */
export const SYNC_DEADLINE_MARGIN_MS =
  MAX_BUDGET_WAIT_MS + AWS_REQUEST_TIMEOUT_MS + SETTLE_MS;

/**
 * One Kubernetes request gives up after this in total, however steadily
 * its answer trickles in (the socket's idle timeout never fires then): a
 * page of a list is at most 500 objects.
 */
export const KUBE_REQUEST_TIMEOUT_MS = 30_000;
