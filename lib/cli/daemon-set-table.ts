/**
 * DaemonSets as `kubectl get ds` prints them (NAME DESIRED CURRENT READY
 * UP-TO-DATE AVAILABLE NODE SELECTOR AGE), for the local run's progress
 * view, and kubectl's AGE notation shared with `kubectl dsr get`.
 */
import type { DaemonSet } from '../reconcile/k8s/types.js';

/**
 * Returns a duration as kubectl shows ages (apimachinery `HumanDuration`):
 * `45s`, `3m12s`, `17m`, `5h3m`, `2d4h`, `12d`, `3y14d`, `9y`.
 */
export const humanDuration = (ms: number): string => {
  const s = Math.floor(ms / 1000);
  if (!Number.isFinite(s)) return '<unknown>';
  if (s < -1) return '<invalid>';
  if (s < 0) return '0s';
  const m = Math.floor(s / 60);
  const h = Math.floor(s / 3_600);
  const d = Math.floor(h / 24);
  if (s < 120) return `${s}s`;
  if (m < 10) return s % 60 === 0 ? `${m}m` : `${m}m${s % 60}s`;
  if (h < 3) return `${m}m`;
  if (h < 8) return m % 60 === 0 ? `${h}h` : `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  if (d < 8) return h % 24 === 0 ? `${d}d` : `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  const y = Math.floor(d / 365);
  if (y < 8) return d % 365 === 0 ? `${y}y` : `${y}y${d % 365}d`;
  return `${y}y`;
};

/** Returns the AGE column of an object created at `created`. */
export const kubectlAge = (
  created: string | undefined,
  nowMs: number
): string => humanDuration(nowMs - Date.parse(created ?? ''));

/** Returns rows as left-aligned columns three spaces apart, as kubectl. */
export const kubectlColumns = (
  rows: readonly (readonly string[])[]
): string[] => {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows.map((r) =>
    r
      .map((cell, i) =>
        i === r.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 3)
      )
      .join('')
  );
};

/** The status columns kubectl shows for every DaemonSet table. */
export const STATUS_HEADER = [
  'DESIRED',
  'CURRENT',
  'READY',
  'UP-TO-DATE',
  'AVAILABLE',
] as const;

/** Returns the cells under STATUS_HEADER. */
export const statusCells = (ds: DaemonSet): string[] => {
  const s = ds.status;
  return [
    s?.desiredNumberScheduled,
    s?.currentNumberScheduled,
    s?.numberReady,
    s?.updatedNumberScheduled,
    s?.numberAvailable,
  ].map((n) => String(n ?? 0));
};

const selectorOf = (ds: DaemonSet): string =>
  Object.entries(ds.spec?.template.spec?.nodeSelector ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(',') || '<none>';

/**
 * Returns the lines of `kubectl get ds` for `items` (with a NAMESPACE
 * column when they span namespaces), or kubectl's empty answer.
 */
export const formatDaemonSetTable = (
  items: readonly DaemonSet[],
  nowMs: number
): string[] => {
  if (items.length === 0) return ['No resources found'];
  const namespaces = new Set(items.map((ds) => ds.metadata?.namespace));
  const wide = namespaces.size > 1;
  const header = [
    ...(wide ? ['NAMESPACE'] : []),
    'NAME',
    ...STATUS_HEADER,
    'NODE SELECTOR',
    'AGE',
  ];
  return kubectlColumns([
    header,
    ...items.map((ds) => [
      ...(wide ? [ds.metadata?.namespace ?? ''] : []),
      ds.metadata?.name ?? '',
      ...statusCells(ds),
      selectorOf(ds),
      kubectlAge(ds.metadata?.creationTimestamp, nowMs),
    ]),
  ]);
};
