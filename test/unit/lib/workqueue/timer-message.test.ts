/** The timer message format and SQS delay arithmetic (lib/workqueue/timer-message.ts). */
import { describe, expect, it } from 'vitest';
import {
  delaySecondsFor,
  formatTimerMessage,
  parseTimerMessage,
} from '#lib/workqueue/timer-message.js';

const KEY = 'c1/default/agent';

describe('parseTimerMessage', () => {
  it('reads back what formatTimerMessage wrote', () => {
    // Prepare
    const timer = { key: KEY, dueAtMs: 1_767_225_600_123, token: 'abc' };
    // Act
    const parsed = parseTimerMessage(formatTimerMessage(timer));
    // Assess
    expect(parsed).toEqual(timer);
  });
});

describe('delaySecondsFor', () => {
  it.each([
    { remainingMs: -5, seconds: 0 },
    { remainingMs: 0, seconds: 0 },
    { remainingMs: 1, seconds: 1 },
    { remainingMs: 1_000, seconds: 1 },
    { remainingMs: 1_001, seconds: 2 },
    { remainingMs: 900_000, seconds: 900 },
    { remainingMs: 86_400_000, seconds: 900 },
  ])('returns $seconds s for $remainingMs ms', ({ remainingMs, seconds }) => {
    // Act
    const result = delaySecondsFor(remainingMs);
    // Assess
    expect(result).toBe(seconds);
  });
});
