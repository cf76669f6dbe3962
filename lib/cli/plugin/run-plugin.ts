/**
 * `kubectl dsr`: kubectl's rollout commands for the own kind, which kubectl
 * itself cannot roll (its rollout verbs know only built-in kinds). Returns
 * what to print and the exit code (0 done, 1 failed) instead of printing,
 * so tests call it directly against a real API server.
 */
import { ApiErrorReason, isApiError } from '../../errors.js';
import type { AdvancedDaemonSets } from '../../ports/index.js';
import type {
  ControllerRevision,
  DaemonSet,
} from '../../reconcile/k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../../reconcile/k8s/types.js';
import { match } from '../../reconcile/revision-hash.js';
import { describeError } from '../check-cluster.js';
import { CliUsageError } from '../cli-usage-error.js';
import {
  PLUGIN_USAGE,
  type PluginCommand,
  parsePluginArgs,
} from './parse-plugin-args.js';
import { rolloutStatus } from './rollout-status.js';

/** What the plugin runs against. */
export interface PluginDeps {
  /** Opens the cluster of `--kubeconfig`/`--context`; `namespace` is the context's. */
  open(target: { kubeconfig?: string; context?: string }): {
    api: AdvancedDaemonSets & { close(): void };
    namespace: string;
  };
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Prints one line at once (rollout status progress). */
  write(text: string): void;
}

/** What one run prints, and how it exits. */
export interface PluginOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const RESOURCE = 'advanceddaemonset.apps.dsr.dev';
/** How often `rollout status` looks again while it waits. */
const STATUS_POLL_MS = 1_000;

type Cmd = Exclude<PluginCommand, { verb: 'help' } | { verb: 'get' }>;

const revisionOf = (r: ControllerRevision): number => Number(r.revision ?? 0);

const rolloutAnnotations = (ds: DaemonSet) =>
  ds.spec?.updateStrategy?.rollingUpdate;

const status = async (
  c: Cmd,
  api: AdvancedDaemonSets,
  ns: string,
  deps: PluginDeps
): Promise<string> => {
  const deadline = c.timeoutMs ? deps.now() + c.timeoutMs : Infinity;
  let last = '';
  for (;;) {
    const { message, done } = rolloutStatus(await api.get(ns, c.name));
    if (!c.watch) return message;
    if (message !== last) deps.write(message);
    last = message;
    if (done) return '';
    if (deps.now() >= deadline) {
      throw new Error('timed out waiting for the condition');
    }
    await deps.sleep(STATUS_POLL_MS);
  }
};

const history = async (c: Cmd, api: AdvancedDaemonSets, ns: string) => {
  const ds = await api.get(ns, c.name);
  const revisions = (await api.revisions(ds)).sort(
    (a, b) => revisionOf(a) - revisionOf(b)
  );
  if (c.revision !== undefined) {
    const r = revisions.find((x) => revisionOf(x) === c.revision);
    if (r === undefined) {
      throw new Error(`unable to find the specified revision`);
    }
    const { template } = (r.data as { spec: { template: object } }).spec;
    const { $patch: _, ...shown } = template as Record<string, unknown>;
    return `${RESOURCE}/${c.name} with revision #${c.revision}\nPod Template:\n${JSON.stringify(shown, null, 2)}\n`;
  }
  const rows = revisions.map(
    (r) =>
      `${String(revisionOf(r)).padEnd(10)}${r.metadata?.annotations?.['kubernetes.io/change-cause'] ?? '<none>'}`
  );
  return `${RESOURCE}/${c.name} \n${['REVISION  CHANGE-CAUSE', ...rows].join('\n')}\n\n`;
};

const undo = async (c: Cmd, api: AdvancedDaemonSets, ns: string) => {
  const ds = await api.get(ns, c.name);
  const revisions = (await api.revisions(ds)).sort(
    (a, b) => revisionOf(b) - revisionOf(a)
  );
  const target =
    c.revision === undefined || c.revision === 0
      ? revisions.find((r) => !match(ds, r))
      : revisions.find((r) => revisionOf(r) === c.revision);
  if (target === undefined) {
    throw new Error(
      c.revision
        ? `unable to find specified revision ${c.revision} in history`
        : 'no rollout history found'
    );
  }
  if (match(ds, target)) {
    return `${RESOURCE}/${c.name} skipped rollback (current template already matches revision ${revisionOf(target)})\n`;
  }
  const { template } = (target.data as { spec: { template: object } }).spec;
  const { $patch: _, ...restored } = template as Record<string, unknown>;
  await api.replaceTemplate(ns, c.name, restored);
  return `${RESOURCE}/${c.name} rolled back\n`;
};

const setPaused = async (
  c: Cmd,
  api: AdvancedDaemonSets,
  ns: string,
  paused: boolean
) => {
  const ds = await api.get(ns, c.name);
  if ((rolloutAnnotations(ds)?.paused === true) === paused) {
    throw new Error(
      `${RESOURCE} "${c.name}" is ${paused ? 'already paused' : 'not paused'}`
    );
  }
  await api.patch(ns, c.name, {
    spec: { updateStrategy: { rollingUpdate: { paused } } },
  });
  return `${RESOURCE}/${c.name} ${paused ? 'paused' : 'resumed'}\n`;
};

const restart = async (
  c: Cmd,
  api: AdvancedDaemonSets,
  ns: string,
  deps: PluginDeps
) => {
  const ds = await api.get(ns, c.name);
  if (rolloutAnnotations(ds)?.paused === true) {
    throw new Error(
      `can't restart paused ${RESOURCE} (run rollout resume first)`
    );
  }
  const at = new Date(deps.now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
  await api.patch(ns, c.name, {
    spec: {
      template: {
        metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': at } },
      },
    },
  });
  return `${RESOURCE}/${c.name} restarted\n`;
};

const setPartition = async (c: Cmd, api: AdvancedDaemonSets, ns: string) => {
  const value = c.value ?? '0';
  const partition = value.endsWith('%') ? value : Number(value);
  await api.patch(ns, c.name, {
    spec: { updateStrategy: { rollingUpdate: { partition } } },
  });
  return `${RESOURCE}/${c.name} partition set to ${value}\n`;
};

const age = (created: string | undefined, nowMs: number): string => {
  const s = Math.max(0, Math.floor((nowMs - Date.parse(created ?? '')) / 1000));
  if (!Number.isFinite(s)) return '<unknown>';
  if (s < 120) return `${s}s`;
  if (s < 7_200) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3_600)}h`;
};

const get = async (
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
      String(rolloutAnnotations(ds)?.partition ?? 0),
      String(rolloutAnnotations(ds)?.paused ?? false),
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

const run = (c: Cmd, api: AdvancedDaemonSets, ns: string, deps: PluginDeps) => {
  switch (c.verb) {
    case 'status':
      return status(c, api, ns, deps);
    case 'history':
      return history(c, api, ns);
    case 'undo':
      return undo(c, api, ns);
    case 'pause':
      return setPaused(c, api, ns, true);
    case 'resume':
      return setPaused(c, api, ns, false);
    case 'restart':
      return restart(c, api, ns, deps);
    case 'partition':
      return setPartition(c, api, ns);
  }
};

/**
 * Runs one `kubectl dsr` invocation; never throws. Errors print as kubectl
 * prints them (`error: …`, exit 1; `Error from server (NotFound): …`).
 *
 * @example
 * const out = await runPlugin(process.argv.slice(2), deps);
 */
export const runPlugin = async (
  argv: readonly string[],
  deps: PluginDeps
): Promise<PluginOutput> => {
  let command: PluginCommand;
  try {
    command = parsePluginArgs(argv);
  } catch (e) {
    const problems =
      e instanceof CliUsageError ? e.problems : [describeError(e)];
    return {
      exitCode: 1,
      stdout: '',
      stderr: `${problems.map((p) => `error: ${p}`).join('\n')}\nSee 'kubectl dsr --help' for usage.\n`,
    };
  }
  if (command.verb === 'help') {
    return { exitCode: 0, stdout: PLUGIN_USAGE, stderr: '' };
  }
  let opened: ReturnType<PluginDeps['open']> | undefined;
  try {
    opened = deps.open(command);
    const ns = command.namespace ?? opened.namespace;
    const stdout =
      command.verb === 'get'
        ? await get(command, opened.api, ns, deps)
        : await run(command, opened.api, ns, deps);
    return { exitCode: 0, stdout, stderr: '' };
  } catch (e) {
    const notFound = isApiError(e, ApiErrorReason.NotFound);
    const name = 'name' in command ? command.name : '';
    return {
      exitCode: 1,
      stdout: '',
      stderr: notFound
        ? `Error from server (NotFound): ${RESOURCE} "${name}" not found\n`
        : `error: ${describeError(e)}\n`,
    };
  } finally {
    opened?.api.close();
  }
};
