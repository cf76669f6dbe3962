/** The watchdog a resource watch keeps on a stream's silence. */

/** Aborts its signal when `reset` has not been called for `timeoutMs`. */
export class IdleWatchdog {
  readonly #controller = new AbortController();
  readonly #timeoutMs: number;
  #timer: NodeJS.Timeout;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
    this.#timer = this.#arm();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get fired(): boolean {
    return this.#controller.signal.aborted;
  }

  reset(): void {
    clearTimeout(this.#timer);
    this.#timer = this.#arm();
  }

  stop(): void {
    clearTimeout(this.#timer);
  }

  #arm(): NodeJS.Timeout {
    const timer = setTimeout(() => this.#controller.abort(), this.#timeoutMs);
    timer.unref();
    return timer;
  }
}
