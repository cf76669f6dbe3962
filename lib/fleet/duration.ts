/**
 * Go's duration syntax as Kubernetes users write it (`90s`, `10m`, `1h30m`,
 * `500ms`), the form of every time in a fleet rollout policy.
 */

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

/** Returns the milliseconds of `text`, or undefined when it is not a duration. */
export const parseDuration = (text: string): number | undefined => {
  if (text === '0') return 0;
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) {
    return undefined;
  }
  return Math.round(
    parts.reduce(
      (ms, [, n, unit]) => ms + Number(n) * (UNIT_MS[unit ?? ''] ?? 0),
      0
    )
  );
};

/** Returns `ms` as a short duration (`10m`, `1h30m`, `45s`). */
export const formatDuration = (ms: number): string => {
  if (ms === 0) return '0s';
  let rest = Math.round(ms / 1_000);
  const h = Math.floor(rest / 3_600);
  rest -= h * 3_600;
  const m = Math.floor(rest / 60);
  const s = rest - m * 60;
  return `${h > 0 ? `${h}h` : ''}${m > 0 ? `${m}m` : ''}${s > 0 || (h === 0 && m === 0) ? `${s}s` : ''}`;
};
