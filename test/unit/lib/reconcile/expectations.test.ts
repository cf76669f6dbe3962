import { describe, expect, it } from 'vitest';
import {
  EXPECTATIONS_TIMEOUT_MS,
  expectationsSatisfied,
  isExpired,
} from '#lib/reconcile/expectations.js';

describe('expectationsSatisfied (ControllerExpectations.SatisfiedExpectations)', () => {
  it.each([
    { name: 'no record', record: undefined, now: 0, want: true },
    {
      name: 'fulfilled record',
      record: { add: 0, del: 0, timestampMs: 0 },
      now: 0,
      want: true,
    },
    {
      name: 'over-observed record (negative counts)',
      record: { add: -1, del: -2, timestampMs: 0 },
      now: 0,
      want: true,
    },
    {
      name: 'pending creates',
      record: { add: 1, del: 0, timestampMs: 0 },
      now: EXPECTATIONS_TIMEOUT_MS,
      want: false,
    },
    {
      name: 'pending deletes',
      record: { add: 0, del: 1, timestampMs: 0 },
      now: 1,
      want: false,
    },
    {
      name: 'expired record (treated as absent even if still stored)',
      record: { add: 3, del: 3, timestampMs: 0 },
      now: EXPECTATIONS_TIMEOUT_MS + 1,
      want: true,
    },
  ])('$name', ({ record, now, want }) => {
    // Act / Assess
    expect(expectationsSatisfied(record, now)).toBe(want);
  });

  it('expires only after the 5 minute timeout', () => {
    // Prepare
    const record = { add: 1, del: 0, timestampMs: 1000 };
    // Act / Assess
    expect(isExpired(record, 1000 + 5 * 60_000)).toBe(false);
    expect(isExpired(record, 1001 + 5 * 60_000)).toBe(true);
  });
});
