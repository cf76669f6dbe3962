/**
 * DynamoDB calls counted by kind — the operation and the kinds of item it
 * touched (the partition key's prefix: `q` work-queue marks and timers,
 * `exp` expectations, `lease`, `budget` …) — so that a run whose calls grew
 * past the cost invariant's factor says which calls grew (session 16's seed
 * 110019: 2,924 calls against 800, unexplained).
 */
import type { ProxiedCall } from '../bench/counting-proxy.js';

/** Collects the partition keys (`pk: {S: …}`) anywhere in a request. */
const partitionKeysIn = (value: unknown, found: Set<string>): void => {
  if (Array.isArray(value)) {
    for (const v of value) partitionKeysIn(v, found);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  for (const [name, v] of Object.entries(value)) {
    const s = (v as { S?: unknown } | null)?.S;
    if (name === 'pk' && typeof s === 'string') {
      found.add(s.split('#')[0] ?? s);
    } else {
      partitionKeysIn(v, found);
    }
  }
};

/** Returns the kind of one call: `UpdateItem q`, `BatchWriteItem exp+q` … */
export const dynamodbCallKind = (call: ProxiedCall): string => {
  const prefixes = new Set<string>();
  partitionKeysIn(call.input, prefixes);
  const items = [...prefixes].sort().join('+');
  const failed = call.errorType === undefined ? '' : ` (${call.errorType})`;
  return `${call.action}${items === '' ? '' : ` ${items}`}${failed}`;
};

/** Counts calls by kind. */
export const dynamodbCallKinds = (
  calls: readonly ProxiedCall[]
): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const call of calls) {
    const kind = dynamodbCallKind(call);
    counts[kind] = (counts[kind] ?? 0) + 1;
  }
  return counts;
};

/**
 * Returns the `top` kinds that grew most from `baseline` to `run`, as
 * `UpdateItem q +812 (903 against 91)`.
 */
export const grownKinds = (
  run: Record<string, number>,
  baseline: Record<string, number>,
  top = 5
): string[] =>
  Object.entries(run)
    .map(([kind, n]) => ({ kind, n, grew: n - (baseline[kind] ?? 0) }))
    .filter((k) => k.grew > 0)
    .sort((a, b) => b.grew - a.grew || a.kind.localeCompare(b.kind))
    .slice(0, top)
    .map(
      (k) => `${k.kind} +${k.grew} (${k.n} against ${baseline[k.kind] ?? 0})`
    );
