/**
 * The commands of the cluster registry CLI — list, add, check, unfence,
 * remove — each turning a parsed command into an Outcome (lines to print,
 * the `-o json|yaml` document, the exit code) against the registry, the
 * clusters and the state table.
 */
import type { ClusterRecord, InvalidClusterRecord } from '../../ports/index.js';
import type { TableTarget } from '../parse-table-locator.js';
import { failed, type Outcome } from '../render-output.js';
import { addCluster } from './add-cluster.js';
import { checkCluster } from './check-cluster.js';
import {
  type ClustersCliDeps,
  forgetClusterState,
  recordSummary,
} from './clusters-cli-deps.js';
import type { RegistryCommand } from './clusters-command.js';
import {
  describeAuth,
  formatCheck,
  formatClusterTable,
} from './format-clusters-output.js';
import { relabel } from './label-cluster.js';
import { clusterStates, runtimeState } from './runtime-state.js';

export type {
  ClusterRegistryAdmin,
  ClustersCliDeps,
} from './clusters-cli-deps.js';

type Command<N extends RegistryCommand['name']> = Extract<
  RegistryCommand,
  { name: N }
>;

/** The lines that name registry items the reconciler skips. */
const invalidLines = (invalid: readonly InvalidClusterRecord[]): string[] =>
  invalid.map((i) => `invalid record ${i.key} (skipped): ${i.error}`);

const list = async (
  command: Command<'list'>,
  deps: ClustersCliDeps
): Promise<Outcome> => {
  const { records, invalid } = await deps.registry.list();
  const nowMs = Date.now();
  const states = await clusterStates(records, deps, nowMs);
  return {
    // Exit 1 while an item is skipped: scripts should notice.
    exitCode: invalid.length > 0 ? 1 : 0,
    lines: [
      ...formatClusterTable(records, deps.serverOf, states, {
        wide: command.output === 'wide',
        noHeaders: command.noHeaders,
        nowMs,
      }),
      ...invalidLines(invalid),
    ],
    json: {
      clusters: records.map((r) => {
        const { checkpointedAtMs, ...state } = states.get(r.id) ?? {};
        return {
          ...recordSummary(r, deps),
          ...state,
          ...(checkpointedAtMs === undefined
            ? {}
            : { lastBridged: new Date(checkpointedAtMs).toISOString() }),
        };
      }),
      invalid,
    },
  };
};

const check = async (
  command: Command<'check'>,
  table: TableTarget,
  deps: ClustersCliDeps
): Promise<Outcome> => {
  let records: ClusterRecord[];
  let invalid: InvalidClusterRecord[] = [];
  if (command.id === undefined) {
    ({ records, invalid } = await deps.registry.list());
    if (records.length === 0 && invalid.length === 0) {
      return failed(`no clusters registered in ${table.tableName}`);
    }
  } else {
    const record = await deps.registry.get(command.id);
    if (record === undefined) {
      return failed(`cluster ${command.id} is not registered`);
    }
    records = [record];
  }
  const checks = [];
  // One at a time: the output reads in order, and a registry holds few.
  for (const record of records) {
    checks.push(
      await checkCluster(record, {
        connect: deps.connect,
        serverOf: deps.serverOf,
        timeoutMs: command.timeoutMs,
      })
    );
  }
  const states: Awaited<ReturnType<typeof runtimeState>>[] = [];
  for (const record of records)
    states.push(await runtimeState(record.id, deps));
  const passed = checks.filter((c, i) => c.ok && !states[i]?.fenced).length;
  const lines = checks.flatMap((c, i) => [
    ...(i === 0 ? [] : ['']),
    ...formatCheck(c, states[i] ?? { lines: [], fenced: false }),
  ]);
  if (invalid.length > 0) lines.push('', ...invalidLines(invalid));
  const total = checks.length + invalid.length;
  if (total > 1) lines.push('', `${passed} of ${total} clusters OK`);
  const ok = passed === total;
  return {
    exitCode: ok ? 0 : 1,
    lines,
    json: {
      ok,
      clusters: checks.map((c, i) => ({ ...c, runtime: states[i]?.json })),
      ...(invalid.length > 0 ? { invalid } : {}),
    },
  };
};

const unfence = async (
  command: Command<'unfence'>,
  deps: ClustersCliDeps
): Promise<Outcome> => {
  if ((await deps.registry.get(command.id)) === undefined) {
    return failed(`cluster ${command.id} is not registered`);
  }
  const target = command.daemonSet
    ? `${command.id}/${command.daemonSet}`
    : command.id;
  const what = command.daemonSet
    ? `DaemonSet ${command.daemonSet} of cluster ${command.id}`
    : `cluster ${command.id}`;
  const fence = await deps.ownership.getFence(target);
  if (fence === undefined) {
    return {
      exitCode: 0,
      lines: [`${what} was not fenced`],
      json: { unfenced: target, wasFenced: false },
    };
  }
  // Changes seen while fenced were dropped: every DaemonSet syncs again.
  // Asked first, so a failure leaves the fence for a second unfence.
  await deps.leases.requestResync(command.id);
  await deps.ownership.clearFence(target);
  return {
    exitCode: 0,
    lines: [
      `cleared the fence of ${what}; the reconciler acts on it again and re-syncs ${command.daemonSet ? 'it' : 'every DaemonSet'} within a minute`,
    ],
    json: { unfenced: target, wasFenced: true },
  };
};

const label = async (
  command: Command<'label'>,
  deps: ClustersCliDeps
): Promise<Outcome> => {
  const record = await deps.registry.get(command.id);
  if (record === undefined) {
    return failed(`cluster ${command.id} is not registered`);
  }
  const { record: relabelled, notes } = relabel(record, command);
  await deps.registry.put(relabelled);
  return {
    exitCode: 0,
    lines: [...notes, `cluster ${command.id} labeled`],
    json: { labeled: command.id, labels: relabelled.labels ?? {} },
  };
};

const remove = async (
  command: Command<'remove'>,
  table: TableTarget,
  deps: ClustersCliDeps
): Promise<Outcome> => {
  const record = await deps.registry.get(command.id);
  if (record === undefined) {
    return failed(
      `cluster ${command.id} is not registered in ${table.tableName}; nothing removed`
    );
  }
  // The record goes last, so a failure here leaves it for a second remove.
  await forgetClusterState(command.id, deps);
  await deps.registry.remove(command.id);
  return {
    exitCode: 0,
    lines: [
      `removed cluster ${command.id} (${deps.serverOf(record) || describeAuth(record.auth)}) from ${table.tableName}, with its bookmarks and fence`,
    ],
    json: { removed: command.id },
  };
};

/**
 * Runs one parsed command (not `help`) on `table` (its `--stage`
 * resolved) and returns its outcome.
 */
export const runClustersCommand = (
  command: RegistryCommand,
  table: TableTarget,
  deps: ClustersCliDeps
): Promise<Outcome> => {
  switch (command.name) {
    case 'list':
      return list(command, deps);
    case 'add':
      return addCluster(command, table, deps);
    case 'check':
      return check(command, table, deps);
    case 'remove':
      return remove(command, table, deps);
    case 'unfence':
      return unfence(command, deps);
    case 'label':
      return label(command, deps);
  }
};
