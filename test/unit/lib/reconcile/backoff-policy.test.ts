import { describe, expect, it } from 'vitest';
import {
  FAILED_POD_BACKOFF,
  hasExpired,
  isInBackOffSinceUpdate,
  nextBackoff,
} from '#lib/reconcile/backoff-policy.js';

const policy = FAILED_POD_BACKOFF;

describe('failed-pod backoff (client-go flowcontrol.Backoff)', () => {
  it('starts at 1 s and doubles up to 15 min', () => {
    // Prepare
    let entry = nextBackoff(undefined, 0, policy);
    const delays = [entry.delayMs];
    // Act
    for (let i = 0; i < 12; i++) {
      entry = nextBackoff(entry, entry.lastUpdateMs + 1, policy);
      delays.push(entry.delayMs);
    }
    // Assess
    expect(delays.slice(0, 5)).toEqual([1000, 2000, 4000, 8000, 16000]);
    expect(delays.at(-1)).toBe(900_000);
    expect(Math.max(...delays)).toBe(900_000);
  });

  it('is in backoff strictly before the delay has passed', () => {
    // Prepare
    const entry = nextBackoff(undefined, 10_000, policy);
    // Act / Assess
    expect(isInBackOffSinceUpdate(entry, 10_999, policy)).toBe(true);
    expect(isInBackOffSinceUpdate(entry, 11_000, policy)).toBe(false);
    expect(isInBackOffSinceUpdate(undefined, 10_000, policy)).toBe(false);
  });

  it('treats an entry idle for more than twice the max delay as absent', () => {
    // Prepare
    const entry = { delayMs: 900_000, lastUpdateMs: 0 };
    const later = 2 * 900_000 + 1;
    // Act / Assess
    expect(hasExpired(entry, 2 * 900_000, policy)).toBe(false);
    expect(hasExpired(entry, later, policy)).toBe(true);
    expect(isInBackOffSinceUpdate(entry, later, policy)).toBe(false);
    expect(nextBackoff(entry, later, policy)).toEqual({
      delayMs: 1000,
      lastUpdateMs: later,
    });
  });
});
