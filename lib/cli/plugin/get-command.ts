/**
 * `kubectl dsr get`: AdvancedDaemonSets as kubectl gets them — the table
 * with pods per revision (or `-o json|yaml|wide|name`), filtered by `-l`,
 * and with `-w` every change after the list, printed as it comes, until
 * interrupted (staging/src/k8s.io/kubectl/pkg/cmd/get/get.go `watch`).
 */
import { ApiErrorReason, isApiError } from '../../errors.js';
import type { AdvancedDaemonSets } from '../../ports/index.js';
import type { DaemonSet } from '../../reconcile/k8s/types.js';
import { kubectlColumns } from '../daemon-set-table.js';
import { printList, printObject, tableHeader, tableRow } from './get-output.js';
import type { PluginCommand } from './parse-plugin-args.js';
import type { PluginDeps } from './plugin-deps.js';

type GetCommand = Extract<PluginCommand, { verb: 'get' }>;

/** What a get prints: on stdout, and kubectl's note on stderr. */
export interface GetOutcome {
  stdout: string;
  stderr: string;
}

/** Returns the printer of one invocation's objects. */
const printer = (c: GetCommand, api: AdvancedDaemonSets, deps: PluginDeps) => {
  const wide = c.output === 'wide';
  const table = c.output === 'table' || wide;
  const header = tableHeader(wide, c.allNamespaces);
  const seen: string[][] = [header];
  const rowOf = (ds: DaemonSet) =>
    tableRow(ds, api, {
      wide,
      allNamespaces: c.allNamespaces,
      nowMs: deps.now(),
    });
  let printed = 0;
  let headed = false;
  return {
    /** Returns the first answer: the table (with its header), or the objects. */
    async list(items: readonly DaemonSet[], asList: boolean): Promise<string> {
      if (!table) {
        const format = c.output as 'json' | 'yaml' | 'name';
        if (asList && format !== 'name') return printList(items, format);
        return (await Promise.all(items.map((ds) => this.one(ds)))).join('');
      }
      for (const ds of items) seen.push(await rowOf(ds));
      headed = items.length > 0;
      return headed ? `${kubectlColumns(seen).join('\n')}\n` : '';
    },
    /** Returns one changed object: a row aligned to the table, or the object. */
    async one(ds: DaemonSet): Promise<string> {
      if (table) {
        const lines = kubectlColumns([...seen, await rowOf(ds)]);
        // The first line printed carries the header, as kubectl's.
        const shown = headed ? lines.slice(-1) : [lines[0], lines.at(-1)];
        headed = true;
        return `${shown.join('\n')}\n`;
      }
      const yamlStart = c.output === 'yaml' && printed++ > 0 ? '---\n' : '';
      return `${yamlStart}${printObject(ds, c.output as 'json' | 'yaml' | 'name')}`;
    },
  };
};

/** Prints every change after `resourceVersion` until `deps.signal` aborts. */
const watchChanges = async (
  c: GetCommand,
  api: AdvancedDaemonSets,
  ns: string | undefined,
  resourceVersion: string,
  print: ReturnType<typeof printer>,
  deps: PluginDeps
): Promise<void> => {
  let from = resourceVersion;
  while (!deps.signal?.aborted) {
    const events = api.watch(ns, {
      resourceVersion: from,
      ...(c.selector ? { selector: c.selector } : {}),
      ...(c.name ? { name: c.name } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    try {
      for await (const e of events) {
        if (e.type === 'BOOKMARK' || e.type === 'ERROR') continue;
        from = e.object.metadata?.resourceVersion ?? from;
        deps.write(await print.one(e.object));
      }
    } catch (e) {
      // A watch too old to resume starts again from now, as a relist would.
      if (!isApiError(e, ApiErrorReason.Gone)) throw e;
      from = (await api.listWithVersion(ns, c.selector)).resourceVersion;
    }
  }
};

/** Runs `kubectl dsr get`; with `-w` it prints through `deps.write`. */
export const get = async (
  c: GetCommand,
  api: AdvancedDaemonSets,
  ns: string,
  deps: PluginDeps
): Promise<GetOutcome> => {
  const scope = c.allNamespaces ? undefined : ns;
  const print = printer(c, api, deps);
  let items: DaemonSet[];
  let resourceVersion = '';
  if (c.name) {
    const ds = await api.get(ns, c.name);
    items = [ds];
    resourceVersion = ds.metadata?.resourceVersion ?? '';
  } else {
    ({ items, resourceVersion } = await api.listWithVersion(scope, c.selector));
  }
  const empty =
    items.length === 0 && c.output !== 'json' && c.output !== 'yaml'
      ? c.allNamespaces
        ? 'No resources found\n'
        : `No resources found in ${ns} namespace.\n`
      : '';
  const first =
    items.length === 0 && c.output === 'name'
      ? ''
      : await print.list(items, !c.watch && !c.name);
  if (!c.watch) return { stdout: first, stderr: empty };
  if (first !== '') deps.write(first);
  await watchChanges(c, api, scope, resourceVersion, print, deps);
  return { stdout: '', stderr: '' };
};
