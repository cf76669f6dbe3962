/**
 * The dirty mark an add sets before it sends (client-go's dirty set), and
 * what an add does when another sender's mark is there but not yet
 * confirmed sent: that sender may have died between its mark and its send.
 * A restarted bridge's add within 3 s would coalesce into such a mark, and
 * the change would never be synced. So the add waits for
 * the mark's fate: sent, or taken by a sync that began after this add's
 * change — nothing to send; cleared or stale — it marks anew and sends.
 */
import { ReconcilerError } from '../errors.js';
import type { SeenVersion, WorkQueueMarks } from '../ports/index.js';
import { awaitFate } from './await-fate.js';
import { isMarked } from './dirty-mark.js';

/**
 * How many unsent marks of other senders in a row an add waits on (each
 * for at most awaitFate's 4 s) before it fails and is retried by its caller.
 */
const MARKS_WAITED_ON = 3;

/**
 * Marks `key` dirty; returns true when the add must send its message.
 * `ownSend` returns, for a mark of this very process, whether its send
 * succeeds: the add awaits it rather than poll the store.
 */
export const markForSend = async (
  marks: WorkQueueMarks,
  key: string,
  seen: SeenVersion | undefined,
  markId: string,
  ownSend: (markId: string) => Promise<boolean> | undefined = () => undefined
): Promise<boolean> => {
  for (let waited = 0; ; waited++) {
    // The versions seen are raised once; later rounds only mark.
    const outcome = await marks.markDirty(
      key,
      waited === 0 ? seen : undefined,
      markId
    );
    if (outcome.kind !== 'unsent') return isMarked(outcome);
    if (waited === MARKS_WAITED_ON) {
      throw new ReconcilerError(
        `the dirty mark of ${key} stayed unsent; the add is retried`
      );
    }
    const own = ownSend(outcome.markId);
    const sent =
      own === undefined
        ? ['sent', 'consumed'].includes(
            await awaitFate(() => marks.markFate(key, outcome.markId))
          )
        : await own;
    if (sent) return false;
  }
};
