/**
 * EventCorrelator as client-go's (tools/record/events_cache_test.go:
 * TestEventCorrelator, TestEventAggregatorByReasonFunc,
 * TestSpamFilter): dedup, aggregation after 10 similar events in 10
 * minutes, and 25 events per object at once then one per 5 minutes.
 */
import { describe, expect, it } from 'vitest';
import {
  COMBINED_PREFIX,
  type CorrelatedEvent,
  type Correlation,
  EventCorrelator,
} from '#lib/policy/event-correlator.js';

const created = (
  pod: string,
  objectKey = 'apps/v1/DaemonSet/ns/agent/u1'
): CorrelatedEvent => ({
  objectKey,
  type: 'Normal',
  reason: 'SuccessfulCreate',
  message: `Created pod: ${pod}`,
});

/** Correlates and, like the recorder, remembers what it wrote. */
const write = (
  c: EventCorrelator,
  e: CorrelatedEvent,
  nowMs: number
): Correlation => {
  const out = c.correlate(e, nowMs);
  if (out.action === 'create') c.written(out.key, `ev-${e.message}`, 1);
  if (out.action === 'patch') c.written(out.key, out.name, out.count);
  return out;
};

describe('EventCorrelator (client-go events_cache.go)', () => {
  it('TestEventCorrelator: creates a single event', () => {
    // Prepare
    const c = new EventCorrelator();
    // Act
    const out = write(c, created('a'), 0);
    // Assess
    expect(out).toMatchObject({ action: 'create', message: 'Created pod: a' });
  });

  it('TestEventCorrelator: the same event again only counts', () => {
    // Prepare
    const c = new EventCorrelator();
    write(c, created('a'), 0);
    // Act
    const out = write(c, created('a'), 1_000);
    // Assess
    expect(out).toEqual({
      action: 'patch',
      name: 'ev-Created pod: a',
      count: 2,
      message: 'Created pod: a',
      key: expect.any(String),
    });
  });

  it('TestEventAggregatorByReasonFunc: the 10th similar event in 10 minutes is combined, and later ones count into it', () => {
    // Prepare
    const c = new EventCorrelator();
    const outs: Correlation[] = [];
    // Act
    for (let i = 0; i < 12; i++)
      outs.push(write(c, created(`p${i}`), i * 1_000));
    // Assess
    expect(outs.slice(0, 9).map((o) => o.action)).toEqual(
      Array(9).fill('create')
    );
    expect(outs[9]).toMatchObject({
      action: 'create',
      message: `${COMBINED_PREFIX}Created pod: p9`,
    });
    expect(outs[10]).toMatchObject({
      action: 'patch',
      name: 'ev-Created pod: p9',
      count: 2,
      message: `${COMBINED_PREFIX}Created pod: p10`,
    });
    expect(outs[11]).toMatchObject({ action: 'patch', count: 3 });
  });

  it('TestEventCorrelator: similar events further apart than the interval are not combined', () => {
    // Prepare
    const c = new EventCorrelator();
    const outs: Correlation[] = [];
    // Act
    for (let i = 0; i < 12; i++)
      outs.push(write(c, created(`p${i}`), i * 600_001));
    // Assess
    expect(
      outs.every(
        (o) => o.action === 'create' && !o.message.startsWith(COMBINED_PREFIX)
      )
    ).toBe(true);
  });

  it('TestSpamFilter: 25 events per object at once, then one per 5 minutes', () => {
    // Prepare
    const c = new EventCorrelator();
    const reasons = Array.from({ length: 26 }, (_, i) => ({
      ...created('x'),
      reason: `R${i}`,
    }));
    // Act
    const burst = reasons.map((e) => write(c, e, 0).action);
    const tooSoon = write(
      c,
      { ...created('x'), reason: 'Late' },
      299_000
    ).action;
    const refilled = write(
      c,
      { ...created('x'), reason: 'Later' },
      301_000
    ).action;
    // Assess
    expect(burst.filter((a) => a !== 'skip')).toHaveLength(25);
    expect(burst[25]).toBe('skip');
    expect([tooSoon, refilled]).toEqual(['skip', 'create']);
  });

  it('keeps one bucket per object: a busy DaemonSet does not silence another', () => {
    // Prepare
    const c = new EventCorrelator();
    for (let i = 0; i < 40; i++)
      write(c, { ...created('x'), reason: `R${i}` }, 0);
    // Act
    const other = write(c, created('a', 'apps/v1/DaemonSet/ns/other/u2'), 0);
    // Assess
    expect(other.action).toBe('create');
  });

  it('writes a few dozen Events for a 5,000-pod create, not 5,000', () => {
    // Prepare
    const c = new EventCorrelator();
    // Act
    let writes = 0;
    for (let i = 0; i < 5_000; i++) {
      if (write(c, created(`p${i}`), i * 20).action !== 'skip') writes++;
    }
    // Assess: 25 at once, one more per 5 minutes of the 100-s create
    expect(writes).toBe(25);
  });
});
