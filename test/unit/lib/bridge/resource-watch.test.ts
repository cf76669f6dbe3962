/**
 * ResourceWatch over a scripted watch function: a version ahead of the
 * server is repaired like a 410 (client-go relists on both), and a stream
 * that goes silent is reopened from the last processed event.
 */
import { describe, expect, it } from 'vitest';
import { ResourceWatch } from '#lib/bridge/resource-watch.js';
import { ApiErrorReason, KubeApiError } from '#lib/errors.js';
import type { WatchEvent } from '#lib/ports/index.js';
import type { KubeObject } from '#lib/reconcile/k8s/types.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';

const wallClock = { now: () => Date.now() };

type Script = (
  rv: string,
  signal: AbortSignal
) => AsyncIterable<WatchEvent<KubeObject>>;

/** Runs a watch over `script` until `stopWhen` holds (or 5 s pass). */
const runWatch = async (
  script: Script,
  stopWhen: (events: readonly string[]) => boolean,
  extra: {
    onGone?: () => Promise<string>;
    idleTimeoutMs?: number;
    handlerMs?: number;
  } = {}
) => {
  const events: string[] = [];
  const opened: string[] = [];
  const gone: string[] = [];
  const stop = new AbortController();
  const watch = new ResourceWatch<KubeObject>(
    {
      resource: 'pods',
      watch: (rv, _timeout, signal) => {
        opened.push(rv);
        return script(rv, signal);
      },
      onEvent: async (type, obj) => {
        if (extra.handlerMs) {
          await new Promise((r) => setTimeout(r, extra.handlerMs));
        }
        events.push(`${type} ${obj.metadata?.name}`);
        if (stopWhen(events)) stop.abort();
      },
      onGone:
        extra.onGone ??
        (async () => {
          gone.push('relist');
          return '500';
        }),
      clock: wallClock,
      logger: new FakeLogger(),
      ...(extra.idleTimeoutMs ? { idleTimeoutMs: extra.idleTimeoutMs } : {}),
    },
    '100'
  );
  await watch.run(stop.signal, Date.now() + 5_000);
  return { events, opened, gone, watch };
};

const event = (
  name: string,
  rv: string,
  type: WatchEvent<KubeObject>['type'] = 'MODIFIED'
): WatchEvent<KubeObject> => ({
  type,
  object: { metadata: { name, resourceVersion: rv } },
});

/** Waits until the signal aborts; yields nothing (a half-open stream). */
const silence = (signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) resolve();
    signal.addEventListener('abort', () => resolve(), { once: true });
  });

describe('ResourceWatch', () => {
  it('relists when the stored version is ahead of the server (504 ResourceVersionTooLarge, F11)', async () => {
    // Prepare
    let calls = 0;
    const script: Script = async function* (rv) {
      calls++;
      if (calls === 1) {
        throw new KubeApiError(
          `watch pods from ${rv}: 504 Timeout Too large resource version`,
          {
            reason: ApiErrorReason.ServerError,
            statusCode: 504,
            causes: ['ResourceVersionTooLarge'],
          }
        );
      }
      yield event('p1', '501');
    };
    // Act
    const { opened, gone, events } = await runWatch(script, () => true);
    // Assess
    expect(gone).toEqual(['relist']);
    expect(opened).toEqual(['100', '500']);
    expect(events).toEqual(['MODIFIED p1']);
  });

  it('reopens a stream silent for idleTimeoutMs, from the last processed event (F16)', async () => {
    // Prepare: one event, then silence without closing; the reopened
    // stream brings the next event.
    let calls = 0;
    const script: Script = async function* (_rv, signal) {
      calls++;
      if (calls === 1) {
        yield event('p1', '101');
        await silence(signal);
        return;
      }
      yield event('p2', '102');
    };
    // Act
    const started = Date.now();
    const { opened, events } = await runWatch(
      script,
      (seen) => seen.length === 2,
      { idleTimeoutMs: 100 }
    );
    // Assess
    expect(opened).toEqual(['100', '101']);
    expect(events).toEqual(['MODIFIED p1', 'MODIFIED p2']);
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('keeps a stream that brings bookmarks, however long it runs', async () => {
    // Prepare: bookmarks every 30 ms for 300 ms, with an idle limit of 100.
    const script: Script = async function* () {
      for (let i = 1; i <= 10; i++) {
        await new Promise((r) => setTimeout(r, 30));
        yield event('', String(100 + i), 'BOOKMARK');
      }
      yield event('p1', '111');
    };
    // Act
    const { opened, watch } = await runWatch(script, () => true, {
      idleTimeoutMs: 100,
    });
    // Assess
    expect(opened).toEqual(['100']);
    expect(watch.resourceVersion).toBe('111');
  });

  it('does not count a slow handler as the stream’s silence', async () => {
    // Prepare: each event takes the handler 3 × the idle limit.
    const script: Script = async function* (rv, signal) {
      if (rv === '100') yield event('p1', '101');
      // A stream the watchdog cut ends here (and is reopened from 101).
      await new Promise((r) => setTimeout(r, 10));
      if (signal.aborted) return;
      yield event('p2', '102');
    };
    // Act
    const { opened, events } = await runWatch(
      script,
      (seen) => seen.length === 2,
      { idleTimeoutMs: 100, handlerMs: 300 }
    );
    // Assess
    expect(opened).toEqual(['100']);
    expect(events).toEqual(['MODIFIED p1', 'MODIFIED p2']);
  });
});

describe('ResourceWatch with batched writes (flush)', () => {
  /** A watch whose handler leaves its writes to `flush`. */
  const batched = (
    script: Script,
    flush: () => Promise<void>,
    stopAfter: number
  ) => {
    const stop = new AbortController();
    const opened: string[] = [];
    let handled = 0;
    const watch = new ResourceWatch<KubeObject>(
      {
        resource: 'pods',
        watch: (rv, _t, signal) => {
          opened.push(rv);
          return script(rv, signal);
        },
        onEvent: async () => {
          handled++;
          if (handled === stopAfter) {
            // Stops once the batch had time to be flushed by its timer.
            setTimeout(() => stop.abort(), 200);
          }
        },
        onGone: async () => '900',
        clock: wallClock,
        logger: new FakeLogger(),
        flush,
      },
      '100'
    );
    return {
      watch,
      opened,
      run: () => watch.run(stop.signal, Date.now() + 5_000),
    };
  };

  /** Yields events 101…(100+n) at once, then stays open. */
  const burst = (n: number): Script =>
    async function* (rv, signal) {
      if (rv !== '100') return await silence(signal);
      for (let i = 1; i <= n; i++) yield event(`p${i}`, String(100 + i));
      await silence(signal);
    };

  it('flushes a burst in few writes, and counts its versions processed only after', async () => {
    // Prepare
    const versionsAtFlush: string[] = [];
    let w: ResourceWatch<KubeObject> | undefined;
    const flush = async () => {
      versionsAtFlush.push(w?.resourceVersion ?? '');
    };
    const b = batched(burst(50), flush, 50);
    w = b.watch;
    // Act
    await b.run();
    // Assess: one flush for the burst (the timer), none per event.
    expect(versionsAtFlush.length).toBeLessThanOrEqual(2);
    expect(versionsAtFlush[0]).toBe('100');
    expect(b.watch.resourceVersion).toBe('150');
    expect(b.opened).toEqual(['100']);
  });

  it('retries a failed flush, never passing its events, and delivers nothing twice', async () => {
    // Prepare: the first write fails.
    let calls = 0;
    let versionAfterFailure = '';
    let w: ResourceWatch<KubeObject> | undefined;
    const flush = async () => {
      calls++;
      if (calls === 1) {
        queueMicrotask(() => {
          versionAfterFailure = w?.resourceVersion ?? '';
        });
        throw new Error('throttled');
      }
    };
    const b = batched(burst(3), flush, 3);
    w = b.watch;
    // Act: the retry waits 1 s.
    await b.watch.run(AbortSignal.timeout(1_600), Date.now() + 5_000);
    // Assess
    expect(versionAfterFailure).toBe('100');
    expect(calls).toBeGreaterThanOrEqual(2);
    expect(b.watch.resourceVersion).toBe('103');
    expect(b.opened).toEqual(['100']);
  });

  it('stops without counting what it could not write', async () => {
    // Prepare: every write fails.
    const b = batched(
      burst(2),
      async () => {
        throw new Error('table gone');
      },
      2
    );
    // Act
    await b.watch.run(AbortSignal.timeout(300), Date.now() + 5_000);
    // Assess: a successor resumes from before the two events.
    expect(b.watch.resourceVersion).toBe('100');
  });
});
