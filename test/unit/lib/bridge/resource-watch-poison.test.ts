/**
 * ResourceWatch and an event nothing can be done with: it is tried a few
 * times with backoff, then skipped with one error line naming it and
 * counted, and the events after it are handled; a failed write is retried
 * until it lands, never skipped.
 */
import { describe, expect, it } from 'vitest';
import { POISON_EVENT_TRIES } from '#lib/bridge/poison-events.js';
import { ResourceWatch } from '#lib/bridge/resource-watch.js';
import { UnreadableEventError } from '#lib/errors.js';
import type { WatchEvent } from '#lib/ports/index.js';
import type { KubeObject } from '#lib/reconcile/k8s/types.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';

const wallClock = { now: () => Date.now() };

const event = (name: string, rv: string): WatchEvent<KubeObject> => ({
  type: 'MODIFIED',
  object: { metadata: { name, namespace: 'ns', resourceVersion: rv } },
});

/** The events after `rv` of a collection holding p101, bad102 and p103. */
async function* collection(rv: string): AsyncIterable<WatchEvent<KubeObject>> {
  for (const e of [
    event('p101', '101'),
    event('bad102', '102'),
    event('p103', '103'),
  ]) {
    if (Number(e.object.metadata?.resourceVersion) > Number(rv)) yield e;
  }
}

/** Runs a watch from 100 until `p103` is handled (or 5 s pass). */
const runWatch = async (
  watch: (rv: string) => AsyncIterable<WatchEvent<KubeObject>>,
  onEvent: (name: string) => void,
  onGone: () => Promise<string> = async () => '500'
) => {
  const handled: string[] = [];
  const opened: string[] = [];
  const logger = new FakeLogger();
  const stop = new AbortController();
  const w = new ResourceWatch<KubeObject>(
    {
      resource: 'pods',
      watch: (rv) => {
        opened.push(rv);
        return watch(rv);
      },
      onEvent: async (_type, obj) => {
        const name = obj.metadata?.name ?? '';
        onEvent(name);
        handled.push(name);
        if (name === 'p103') stop.abort();
      },
      onGone,
      clock: wallClock,
      logger,
      retryInitialMs: 5,
    },
    '100'
  );
  await w.run(stop.signal, Date.now() + 5_000);
  const errors = logger.lines.filter((l) => l.level === 'error');
  return { handled, opened, errors, watch: w };
};

describe('ResourceWatch with an event nothing can be done with', () => {
  it('skips an event its handler keeps failing on, once, and goes on', async () => {
    // Prepare
    let tries = 0;
    const onEvent = (name: string) => {
      if (name !== 'bad102') return;
      tries++;
      throw new UnreadableEventError('handle a MODIFIED event of pods');
    };
    // Act
    const { handled, opened, errors, watch } = await runWatch(
      collection,
      onEvent
    );
    // Assess
    expect(tries).toBe(POISON_EVENT_TRIES);
    expect(handled).toEqual(['p101', 'p103']);
    expect(opened).toEqual(
      Array(POISON_EVENT_TRIES)
        .fill('100')
        .map((v, i) => (i === 0 ? v : '101'))
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields).toMatchObject({ object: 'ns/bad102@102' });
    expect(watch.skipped).toBe(1);
    expect(watch.resourceVersion).toBe('103');
  });

  it('retries a failed write past the skip budget, and delivers it', async () => {
    // Prepare
    let tries = 0;
    const onEvent = (name: string) => {
      if (name !== 'bad102') return;
      tries++;
      if (tries <= POISON_EVENT_TRIES) throw new Error('SQS unavailable');
    };
    // Act
    const { handled, errors, watch } = await runWatch(collection, onEvent);
    // Assess
    expect(handled).toEqual(['p101', 'bad102', 'p103']);
    expect(errors).toEqual([]);
    expect(watch.skipped).toBe(0);
  });

  it('gets past an event that does not decode by relisting', async () => {
    // Prepare
    let opens = 0;
    const undecodable = async function* (rv: string) {
      opens++;
      if (rv === '500') {
        yield event('p103', '501');
        return;
      }
      yield* [event('p101', '101')].filter(() => rv === '100');
      throw new UnreadableEventError('watch pods: an undecodable event');
    };
    let relists = 0;
    // Act
    const { handled, errors, watch } = await runWatch(
      undecodable,
      () => undefined,
      async () => {
        relists++;
        return '500';
      }
    );
    // Assess
    expect(opens).toBe(POISON_EVENT_TRIES + 1);
    expect(relists).toBe(1);
    expect(handled).toEqual(['p101', 'p103']);
    expect(errors).toHaveLength(1);
    expect(errors[0]?.fields).toMatchObject({ after: '101' });
    expect(watch.skipped).toBe(1);
  });
});
