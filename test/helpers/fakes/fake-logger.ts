import type { Logger } from '#lib/ports/index.js';

/** Collects log lines for assertions. */
export class FakeLogger implements Logger {
  lines: { level: string; message: string; fields?: object; atMs: number }[] =
    [];
  debug(message: string, fields?: object) {
    this.lines.push({ level: 'debug', message, fields, atMs: Date.now() });
  }
  info(message: string, fields?: object) {
    this.lines.push({ level: 'info', message, fields, atMs: Date.now() });
  }
  warn(message: string, fields?: object) {
    this.lines.push({ level: 'warn', message, fields, atMs: Date.now() });
  }
  error(message: string, fields?: object) {
    this.lines.push({ level: 'error', message, fields, atMs: Date.now() });
  }
}
