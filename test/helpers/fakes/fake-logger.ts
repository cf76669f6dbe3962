import type { Logger } from '#lib/ports/index.js';

/** Collects log lines for assertions. */
export class FakeLogger implements Logger {
  lines: { level: string; message: string; fields?: object }[] = [];
  debug(message: string, fields?: object) {
    this.lines.push({ level: 'debug', message, fields });
  }
  info(message: string, fields?: object) {
    this.lines.push({ level: 'info', message, fields });
  }
  warn(message: string, fields?: object) {
    this.lines.push({ level: 'warn', message, fields });
  }
  error(message: string, fields?: object) {
    this.lines.push({ level: 'error', message, fields });
  }
}
