/**
 * How `kubectl dsr get` prints AdvancedDaemonSets, as kubectl's printers
 * do: the table (and `-o wide`'s CONTAINERS, IMAGES and SELECTOR columns),
 * `-o name`, and `-o json|yaml` with sorted keys, four-space JSON, and no
 * managedFields (kubectl's default --show-managed-fields=false).
 */
import { dump as dumpYaml } from 'js-yaml';
import type { AdvancedDaemonSets } from '../../ports/index.js';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  type DaemonSet,
  type LabelSelector,
} from '../../reconcile/k8s/types.js';
import { kubectlAge, STATUS_HEADER, statusCells } from '../daemon-set-table.js';
import { RESOURCE } from './dry-run.js';
import type { GetOutput } from './parse-plugin-args.js';

/** Returns the header of the table (`-o wide` adds three columns). */
export const tableHeader = (wide: boolean, allNamespaces: boolean) => [
  ...(allNamespaces ? ['NAMESPACE'] : []),
  'NAME',
  ...STATUS_HEADER,
  'PARTITION',
  'PAUSED',
  'PODS-BY-REVISION',
  'AGE',
  ...(wide ? ['CONTAINERS', 'IMAGES', 'SELECTOR'] : []),
];

/** Returns a selector as kubectl prints it (apimachinery `FormatLabelSelector`). */
const formatSelector = (s: LabelSelector | undefined): string => {
  const labels = Object.entries(s?.matchLabels ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`);
  const expressions = (s?.matchExpressions ?? []).map((e) => {
    const values = (e.values ?? []).join(',');
    return (
      {
        In: `${e.key} in (${values})`,
        NotIn: `${e.key} notin (${values})`,
        Exists: e.key,
        DoesNotExist: `!${e.key}`,
      }[e.operator] ?? '<error>'
    );
  });
  return [...labels, ...expressions].join(',') || '<none>';
};

/** Returns one row of the table, with the object's pods per revision. */
export const tableRow = async (
  ds: DaemonSet,
  api: AdvancedDaemonSets,
  o: { wide: boolean; allNamespaces: boolean; nowMs: number }
): Promise<string[]> => {
  const counts = new Map<string, number>();
  for (const pod of await api.pods(ds)) {
    const hash =
      pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '<none>';
    counts.set(hash, (counts.get(hash) ?? 0) + 1);
  }
  const byRevision = [...counts].map(([h, n]) => `${h}=${n}`).join(',');
  const rolling = ds.spec?.updateStrategy?.rollingUpdate;
  const containers = ds.spec?.template.spec?.containers ?? [];
  return [
    ...(o.allNamespaces ? [ds.metadata?.namespace ?? ''] : []),
    ds.metadata?.name ?? '',
    ...statusCells(ds),
    String(rolling?.partition ?? 0),
    String(rolling?.paused ?? false),
    byRevision || '<none>',
    kubectlAge(ds.metadata?.creationTimestamp, o.nowMs),
    ...(o.wide
      ? [
          containers.map((c) => c.name).join(','),
          containers.map((c) => c.image ?? '').join(','),
          formatSelector(ds.spec?.selector),
        ]
      : []),
  ];
};

/** Returns `value` with every object's keys sorted, as Go prints a map. */
const sortedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortedKeys)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
            .map(([k, v]) => [k, sortedKeys(v)])
        )
      : value;

const withoutManagedFields = (ds: DaemonSet): DaemonSet => {
  const { managedFields: _, ...metadata } = (ds.metadata ?? {}) as Record<
    string,
    unknown
  >;
  return { ...ds, metadata } as DaemonSet;
};

/** Returns a document as `-o json` or `-o yaml` prints it. */
export const printDocument = (doc: unknown, format: 'json' | 'yaml') => {
  const sorted = sortedKeys(doc);
  return format === 'json'
    ? `${JSON.stringify(sorted, null, 4)}\n`
    : dumpYaml(sorted, {
        lineWidth: -1,
        seqNoIndent: true,
        quoteStyle: 'double',
      });
};

/** Returns one object as `-o json|yaml|name` prints it. */
export const printObject = (
  ds: DaemonSet,
  format: Exclude<GetOutput, 'table' | 'wide'>
): string =>
  format === 'name'
    ? `${RESOURCE}/${ds.metadata?.name}\n`
    : printDocument(withoutManagedFields(ds), format);

/** Returns a list as `-o json|yaml` prints it: kubectl's `List`. */
export const printList = (
  items: readonly DaemonSet[],
  format: 'json' | 'yaml'
): string =>
  printDocument(
    {
      apiVersion: 'v1',
      items: items.map(withoutManagedFields),
      kind: 'List',
      metadata: { resourceVersion: '' },
    },
    format
  );
