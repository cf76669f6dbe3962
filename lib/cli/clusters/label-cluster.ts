/**
 * `dsr clusters label`: sets or removes a registered cluster's labels with
 * `kubectl label`'s rules: `key=value` sets (a different existing value
 * needs `--overwrite`), `key-` removes; the record is written once, after
 * every change was checked.
 */
import type { ClusterRecord } from '../../ports/index.js';
import { CliUsageError } from '../cli-usage-error.js';
import type { RegistryCommand } from './clusters-command.js';

/** Returns the labels after `changes`, or throws naming every refusal. */
export const applyLabelChanges = (
  labels: Readonly<Record<string, string>>,
  changes: readonly string[],
  overwrite: boolean
): { labels: Record<string, string>; notes: string[] } => {
  const next = { ...labels };
  const problems: string[] = [];
  const notes: string[] = [];
  for (const change of changes) {
    if (change.endsWith('-') && !change.includes('=')) {
      const key = change.slice(0, -1);
      if (next[key] === undefined) notes.push(`label "${key}" not found.`);
      delete next[key];
      continue;
    }
    const at = change.indexOf('=');
    if (at <= 0) {
      problems.push(`invalid label spec: ${change}`);
      continue;
    }
    const key = change.slice(0, at);
    const value = change.slice(at + 1);
    if (next[key] !== undefined && next[key] !== value && !overwrite) {
      problems.push(
        `'${key}' already has a value (${next[key]}), and --overwrite is false`
      );
      continue;
    }
    next[key] = value;
  }
  if (problems.length > 0) throw new CliUsageError(problems);
  return { labels: next, notes };
};

/** Returns the record with its labels changed (no labels: none kept). */
export const relabel = (
  record: ClusterRecord,
  command: Extract<RegistryCommand, { name: 'label' }>
): { record: ClusterRecord; notes: string[] } => {
  const { labels, notes } = applyLabelChanges(
    record.labels ?? {},
    command.changes,
    command.overwrite
  );
  const { labels: _old, ...rest } = record;
  return {
    record: Object.keys(labels).length === 0 ? rest : { ...rest, labels },
    notes,
  };
};
