/**
 * What a failed end-to-end test leaves for its reader: CI keeps only the
 * closing lines of a run and not the clone, so a test that fails writes the
 * stack's log (info and above, oldest first) to `.build/test-failures/`,
 * and the summary reporter prints each such file's tail just before the
 * summary line.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import { FAILURE_REPORT_DIR } from './failure-report-dir.js';
import type { FakeLogger } from './fakes/fake-logger.js';

/** How much of one field object a report line keeps. */
const FIELDS_CHARS = 200;
/** Fields that only correlate lines: left out to keep lines short. */
const NOISE = new Set(['reconcileId', 'messageId', 'coalesced']);

const shownFields = (fields: object | undefined): string => {
  if (fields === undefined) return '';
  const kept = Object.entries(fields).filter(([k]) => !NOISE.has(k));
  return ` ${JSON.stringify(Object.fromEntries(kept)).slice(0, FIELDS_CHARS)}`;
};

/** Renders log lines as `+seconds level message {fields}`, from `sinceMs`. */
const renderLogTail = (lines: FakeLogger['lines'], sinceMs: number): string[] =>
  lines
    .filter((l) => l.level !== 'debug' && l.atMs >= sinceMs)
    .map((l) => {
      const at = ((l.atMs - sinceMs) / 1_000).toFixed(1);
      return `+${at}s ${l.level} ${l.message}${shownFields(l.fields)}`;
    });

/**
 * After each failed test of the calling file, writes the log of the logger
 * `logger()` returns (since the test began) to a report file.
 */
export const reportLogOnFailure = (
  logger: () => FakeLogger | undefined
): void => {
  let startedMs = Date.now();
  afterEach((ctx) => {
    const began = startedMs;
    startedMs = Date.now();
    if (ctx.task.result?.state !== 'fail') return;
    const lines = renderLogTail(logger()?.lines ?? [], began);
    mkdirSync(FAILURE_REPORT_DIR, { recursive: true });
    const name = `${ctx.task.name}`
      .replace(/[^a-zA-Z0-9-]+/g, '-')
      .slice(0, 80);
    writeFileSync(
      path.join(FAILURE_REPORT_DIR, `${name}.txt`),
      [`${ctx.task.file?.name} > ${ctx.task.name}`, ...lines].join('\n')
    );
  });
};
