/**
 * The serverless stack's log of one bench run, kept as JSON lines when
 * BENCH_STACK_LOG names a folder: a sync-by-sync timeline (every line has
 * its wall time) for finding where a create's or a rollout's time goes.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { say } from './markdown.js';

/** Writes `lines` to `$BENCH_STACK_LOG/<name>.jsonl`, if that is set. */
export const keepStackLog = (
  lines: readonly { atMs: number; level: string; message: string }[],
  name: string
): void => {
  const dir = process.env.BENCH_STACK_LOG;
  if (dir === undefined || dir === '') return;
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.jsonl`);
  writeFileSync(file, `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  say(`serverless: ${lines.length} log lines kept in ${file}`);
};
