/**
 * Expectations that, asked whether they are met, wait a moment for it.
 * A burst's first observed pod wakes the key, and that sync runs as soon as
 * the burst's sync ends — while the bridge still observes the burst's last
 * pods, for a few hundred milliseconds. Upstream's sync then only writes
 * status, and the next burst waits for another wake-up through the queue;
 * this one polls the store and goes on with the burst once the last pod is
 * observed (at worst it ends as upstream's would). Only the timing of the
 * answer changes: the sync reads its pods after it, at least as fresh as
 * the versions the bridge noted before lowering them.
 */
import { abortableSleep } from '../bridge/resource-watch.js';
import type { Clock, ExpectationsStore } from '../ports/index.js';

/**
 * How long the deployed syncs wait: off. A first cut that also waited
 * before the rolling update measured a 5,000-node create at 30.4 s against
 * 37.5 s without, but broke upstream's rule (see below); waiting on the
 * first question only measured 47.4 s against 36.1 s (one run each), so it
 * stays off until an A/B with repeats says otherwise.
 */
export const EXPECTATIONS_WAIT_MS = 0;
/** How often the store is asked again while waiting. */
export const EXPECTATIONS_POLL_MS = 50;

/** How long to wait, and by when at the latest. */
export interface PatienceOptions {
  waitMs: number;
  /** The sync's deadline: no wait reaches past it. */
  deadlineMs: number;
  clock: Clock;
  pollMs?: number;
  /** Waits `ms` (tests step a fake clock). */
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Returns `store` for one sync, whose first `satisfiedExpectations` waits
 * up to `waitMs`.
 */
export const withPatience = (
  store: ExpectationsStore,
  o: PatienceOptions
): ExpectationsStore => {
  if (o.waitMs <= 0) return store;
  const pollMs = o.pollMs ?? EXPECTATIONS_POLL_MS;
  const wait = o.sleep ?? abortableSleep;
  let asked = false;
  const satisfiedExpectations = async (key: string): Promise<boolean> => {
    // Only the sync's first question waits. The later one (before the
    // rolling update) follows the sync's own writes: upstream skips the
    // rolling update until they are observed, because the pods the sync
    // read predate them — waiting there would let it act on that stale
    // list (an old pod deleted beside the new one's failed pod, in the
    // same sync).
    if (asked) return store.satisfiedExpectations(key);
    asked = true;
    const untilMs = Math.min(o.clock.now() + o.waitMs, o.deadlineMs);
    // Counted too: a clock that does not move must not wait forever.
    for (let polls = Math.ceil(o.waitMs / pollMs); ; polls--) {
      if (await store.satisfiedExpectations(key)) return true;
      if (polls <= 0 || o.clock.now() + pollMs > untilMs) return false;
      await wait(pollMs);
    }
  };
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'satisfiedExpectations') return satisfiedExpectations;
      // The target as `this`: stores keep #private fields.
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
};
