/** `kubectl dsr get`: AdvancedDaemonSets as a kubectl table, with pods per revision. */
import type { AdvancedDaemonSets } from '../../ports/index.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  type DaemonSet,
} from '../../reconcile/k8s/types.js';
import {
  kubectlAge,
  kubectlColumns,
  STATUS_HEADER,
  statusCells,
} from '../daemon-set-table.js';
import type { PluginCommand } from './parse-plugin-args.js';
import type { PluginDeps } from './plugin-deps.js';

const rollingUpdateOf = (ds: DaemonSet) =>
  ds.spec?.updateStrategy?.rollingUpdate;

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
    ...STATUS_HEADER,
    'PARTITION',
    'PAUSED',
    'PODS-BY-REVISION',
    'AGE',
  ];
  const rows = [header];
  for (const ds of items) {
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
      ...statusCells(ds),
      String(rollingUpdateOf(ds)?.partition ?? 0),
      String(rollingUpdateOf(ds)?.paused ?? false),
      byRevision || '<none>',
      kubectlAge(ds.metadata?.creationTimestamp, deps.now()),
    ]);
  }
  if (items.length === 0) return `No resources found in ${ns} namespace.\n`;
  return `${kubectlColumns(rows).join('\n')}\n`;
};
