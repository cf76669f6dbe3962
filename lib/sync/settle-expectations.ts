/**
 * The expectations writes of `syncNodes`, which upstream makes in memory and
 * which never fail there. Ours may fail, and a record left expecting writes
 * that no call will make holds every later sync of the key back to a status
 * update until it expires. So each failure leaves the key in a state that
 * drops the record: undone at once, dropped by the key's next sync, or, when
 * even that cannot be noted, by the redelivery of an attempt that ends as a
 * dead one (UnsettledExpectationsError).
 */
import { toError, UnsettledExpectationsError } from '../errors.js';
import type { SyncContext } from './context.js';

/**
 * Runs `write`; when it fails, runs `recover` and passes the error on, or,
 * when `recover` fails too, ends the attempt as a dead one.
 */
const writeOrRecover = async (
  ctx: SyncContext,
  write: () => Promise<void>,
  recover: () => Promise<void>,
  unsettled: string
): Promise<void> => {
  try {
    await write();
  } catch (e) {
    try {
      await recover();
    } catch (failed) {
      throw new UnsettledExpectationsError(
        `expectations of ${ctx.key} ${unsettled}: ${toError(failed).message}`,
        { cause: e }
      );
    }
    throw e;
  }
};

/**
 * Sets this round's expectations. The write may fail and still have landed
 * (a lost answer, a timeout); nothing is created or deleted yet, so the
 * record is dropped before the error goes on.
 */
export const setExpectationsOrUndo = (
  ctx: SyncContext,
  adds: number,
  dels: number
): Promise<void> =>
  writeOrRecover(
    ctx,
    () => ctx.deps.expectations.setExpectations(ctx.key, adds, dels),
    () => ctx.deps.expectations.deleteExpectations(ctx.key),
    'may be set, and dropping them failed'
  );

/**
 * Lowers the expectations of writes this sync will not make (a failed
 * create or delete, creates skipped after a failed batch). When the
 * lowering fails, the key's next sync is made to drop the record and read
 * the latest state, as after a dead attempt — it sees every pod this one
 * made — and the error goes on (else a throttled lowering would leave the
 * record expecting creates never made, and no sync would create a pod again).
 */
export const lowerOrDropNext = (
  ctx: SyncContext,
  lower: () => Promise<void>
): Promise<void> =>
  writeOrRecover(
    ctx,
    lower,
    async () => {
      const dropNext = ctx.deps.readLatestNext;
      if (dropNext === undefined) throw new Error('no later sync to tell');
      await dropNext();
    },
    'may wait for writes never made, and the next sync could not be told to drop them'
  );
