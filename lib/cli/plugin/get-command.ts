/** `kubectl dsr get`: AdvancedDaemonSets as a kubectl table, with pods per revision. */
import type { AdvancedDaemonSets } from '../../ports/index.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  type DaemonSet,
} from '../../reconcile/k8s/types.js';
import type { PluginCommand } from './parse-plugin-args.js';
import type { PluginDeps } from './run-plugin.js';

const rollingUpdateOf = (ds: DaemonSet) =>
  ds.spec?.updateStrategy?.rollingUpdate;

const age = (created: string | undefined, nowMs: number): string => {
  const s = Math.max(0, Math.floor((nowMs - Date.parse(created ?? '')) / 1000));
  if (!Number.isFinite(s)) return '<unknown>';
  if (s < 120) return `${s}s`;
  if (s < 7_200) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3_600)}h`;
};

/** `kubectl dsr get`: the table of AdvancedDaemonSets. */
export const get = async (
  c: Extract<PluginCommand, { verb: 'get' }>,
  api: AdvancedDaemonSets,
  ns: string,
  deps: PluginDeps
) => {
  const all = c.allNamespaces ? undefined : ns;
  const items = c.name ? [await api.get(ns, c.name)] : await api.list(all);
  const header = [
    ...(c.allNamespaces ? ['NAMESPACE'] : []),
    'NAME',
    'DESIRED',
    'CURRENT',
    'READY',
    'UP-TO-DATE',
    'AVAILABLE',
    'PARTITION',
    'PAUSED',
    'PODS-BY-REVISION',
    'AGE',
  ];
  const rows = [header];
  for (const ds of items) {
    const s = ds.status;
    const counts = new Map<string, number>();
    for (const pod of await api.pods(ds)) {
      const hash =
        pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '<none>';
      counts.set(hash, (counts.get(hash) ?? 0) + 1);
    }
    const byRevision = [...counts].map(([h, n]) => `${h}=${n}`).join(',');
    rows.push([
      ...(c.allNamespaces ? [ds.metadata?.namespace ?? ''] : []),
      ds.metadata?.name ?? '',
      String(s?.desiredNumberScheduled ?? 0),
      String(s?.currentNumberScheduled ?? 0),
      String(s?.numberReady ?? 0),
      String(s?.updatedNumberScheduled ?? 0),
      String(s?.numberAvailable ?? 0),
      String(rollingUpdateOf(ds)?.partition ?? 0),
      String(rollingUpdateOf(ds)?.paused ?? false),
      byRevision || '<none>',
      age(ds.metadata?.creationTimestamp, deps.now()),
    ]);
  }
  if (items.length === 0) return `No resources found in ${ns} namespace.\n`;
  const widths = header.map((_, i) =>
    Math.max(...rows.map((r) => (r[i] ?? '').length))
  );
  return `${rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd((widths[i] ?? 0) + 3))).join('')).join('\n')}\n`;
};
