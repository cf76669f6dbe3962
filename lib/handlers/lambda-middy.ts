/**
 * Every function's middy chain starts here, with middy's early timeout off.
 * By default middy settles the handler 5 ms before Lambda's timeout and
 * leaves the work running: Lambda then freezes the sandbox, and the
 * abandoned sync resumes at the sandbox's next invocation — writing pods
 * from a stale plan while its redelivered message is synced elsewhere. The
 * product relies on a timed-out attempt being dead (a redelivery drops its
 * expectations), so Lambda's own timeout must end it, sandbox and all.
 * (The fault campaign found the zombies: two syncs of one key at once.)
 */
import middy from '@middy/core';
import type { Context } from 'aws-lambda';

/** middy(handler) without the early timeout. */
export const lambdaMiddy = <E, R>(
  handler: (event: E, context: Context) => Promise<R>
) => middy(handler, { timeoutEarlyInMillis: 0 });
