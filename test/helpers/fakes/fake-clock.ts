import type { Clock } from '#lib/ports/index.js';

/** A clock tests move by hand (upstream `testingclock.FakeClock`). */
export class FakeClock implements Clock {
  constructor(private ms = Date.UTC(2026, 0, 1)) {}
  now(): number {
    return this.ms;
  }
  step(ms: number): void {
    this.ms += ms;
  }
  set(ms: number): void {
    this.ms = ms;
  }
}
