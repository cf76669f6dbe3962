/** Small helpers the benchmarks print their results with. */

/** Returns a Markdown table of `rows` under `header`. */
export const markdownTable = (
  header: readonly string[],
  rows: readonly (readonly (string | number)[])[]
): string =>
  [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(String).join(' | ')} |`),
  ].join('\n');

/**
 * Returns the `p`-th percentile (0–100) of `values` by the nearest-rank
 * method (a value that was actually measured, no interpolation).
 */
export const percentile = (values: readonly number[], p: number): number => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
};

/** Returns the arithmetic mean of `values`. */
export const mean = (values: readonly number[]): number =>
  values.length === 0
    ? Number.NaN
    : values.reduce((a, b) => a + b, 0) / values.length;

/** Returns `n` with at most `digits` decimals, as text. */
export const fixed = (n: number, digits = 1): string =>
  Number.isInteger(n) ? String(n) : n.toFixed(digits);

/** Returns a byte count in KiB with one decimal. */
export const kib = (bytes: number): string => (bytes / 1024).toFixed(1);

/** Returns a duration in seconds with one decimal. */
export const seconds = (ms: number): string => (ms / 1000).toFixed(1);

/** Writes one line to stdout (progress and results). */
export const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};
