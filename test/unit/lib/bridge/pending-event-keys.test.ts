/**
 * PendingEventKeys: a batch of event work keeps the order that matters
 * (expectations before keys, a drop voiding the lowerings before it),
 * coalesces per key, and writes each entry once across retries.
 */
import { describe, expect, it } from 'vitest';
import { PendingEventKeys } from '#lib/bridge/pending-event-keys.js';
import type {
  ExpectationsStore,
  ObservedPodEvent,
  SeenVersion,
  WorkQueue,
} from '#lib/ports/index.js';
import type { EventKeys } from '#lib/reconcile/event-keys/index.js';

const none: EventKeys = {
  keys: [],
  expectations: [],
  delayedKeys: [],
  dropExpectations: [],
};

/** Records every write in order; `failing` keys fail once each. */
const recorder = (failing: string[] = []) => {
  const writes: string[] = [];
  const fail = (what: string) => {
    const i = failing.indexOf(what);
    if (i < 0) return;
    failing.splice(i, 1);
    throw new Error(`${what} failed`);
  };
  const expectations = {
    deleteExpectations: async (k: string) => {
      fail(`drop ${k}`);
      writes.push(`drop ${k}`);
    },
    lowerObserved: async (k: string, events: readonly ObservedPodEvent[]) => {
      fail(`lower ${k}`);
      const add = events.filter((e) => e.observed === 'creation').length;
      writes.push(`lower ${k} ${add} ${events.length - add}`);
    },
  } as unknown as ExpectationsStore;
  const queue: WorkQueue = {
    add: async (k: string, seen?: SeenVersion) => {
      fail(`add ${k}`);
      writes.push(
        `add ${k}${seen ? ` @${seen.resourceVersion}` : ''}${seen?.releasePod ? ` release ${seen.releasePod}` : ''}`
      );
    },
    addAfter: async (k: string, ms: number) => {
      writes.push(`after ${k} ${ms}`);
    },
    addAnew: async () => undefined,
    noteSeen: async (k: string, seen: SeenVersion) => {
      fail(`note ${k}`);
      writes.push(`note ${k} @${seen.resourceVersion}`);
    },
  };
  return { writes, deps: { expectations, queue } };
};

const pods = (rv: string, releasePod?: string): SeenVersion => ({
  collection: 'pods',
  resourceVersion: rv,
  ...(releasePod ? { releasePod } : {}),
});

describe('PendingEventKeys', () => {
  it('sums lowerings and coalesces adds per key, expectations first, the newest version kept', async () => {
    // Prepare
    const batch = new PendingEventKeys();
    const created = (key: string): EventKeys => ({
      ...none,
      keys: [key],
      expectations: [{ key, observed: 'creation' }],
    });
    batch.merge(created('c/ns/a'), pods('11'));
    batch.merge(created('c/ns/a'), pods('12'));
    batch.merge(
      {
        ...none,
        keys: ['c/ns/a'],
        expectations: [{ key: 'c/ns/a', observed: 'deletion' }],
      },
      pods('13')
    );
    batch.merge({ ...none, keys: ['c/ns/a'] });
    const { writes, deps } = recorder();
    // Act
    await batch.apply(deps);
    // Assess
    // one-daemon-pod-per-node (campaign seed 349): the lowered events'
    // version is noted before the lowering lands, so a sync that finds the
    // expectations met lists pods at least that fresh.
    expect(writes).toEqual([
      'note c/ns/a @13',
      'lower c/ns/a 2 1',
      'add c/ns/a @13',
    ]);
    expect(batch.empty).toBe(true);
  });

  it('drops voiding the lowerings before them, keeps those after, and writes delayed keys last at their earliest', async () => {
    // Prepare
    const batch = new PendingEventKeys();
    batch.merge({
      ...none,
      expectations: [{ key: 'k', observed: 'creation' }],
    });
    batch.merge({ ...none, dropExpectations: ['k'], keys: ['k'] });
    batch.merge({
      ...none,
      expectations: [{ key: 'k', observed: 'deletion' }],
    });
    batch.merge({ ...none, delayedKeys: [{ key: 'k', afterMs: 900 }] });
    batch.merge({ ...none, delayedKeys: [{ key: 'k', afterMs: 300 }] });
    const { writes, deps } = recorder();
    // Act
    await batch.apply(deps);
    // Assess
    expect(writes).toEqual(['drop k', 'lower k 0 1', 'add k', 'after k 300']);
  });

  it('gives each pod to release its own add', async () => {
    // Prepare
    const batch = new PendingEventKeys();
    batch.merge({ ...none, keys: ['k'] }, pods('5', 'p1'));
    batch.merge({ ...none, keys: ['k'] }, pods('6', 'p2'));
    const { writes, deps } = recorder();
    // Act
    await batch.apply(deps);
    // Assess
    expect(writes.sort()).toEqual([
      'add k @5 release p1',
      'add k @6 release p2',
    ]);
  });

  it('throws the first failure after its step settled, and writes only what failed when applied again', async () => {
    // Prepare
    const batch = new PendingEventKeys();
    for (const key of ['a', 'b']) {
      batch.merge({
        ...none,
        keys: [key],
        expectations: [{ key, observed: 'creation' }],
      });
    }
    const { writes, deps } = recorder(['lower b']);
    // Act
    const failed = await batch.apply(deps).catch((e: Error) => e.message);
    await batch.apply(deps);
    // Assess: a lowered once, no key queued before b's lowering landed.
    expect(failed).toBe('lower b failed');
    expect(writes).toEqual(['lower a 1 0', 'lower b 1 0', 'add a', 'add b']);
  });
});
