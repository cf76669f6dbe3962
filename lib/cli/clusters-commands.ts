/**
 * The commands of the cluster registry CLI — list, add, check, unfence,
 * remove — each turning a parsed command into an Outcome (lines to print,
 * the `--json` document, the exit code) against the registry, the clusters
 * and the state table.
 */
import type {
  BridgeLeaseStore,
  ClusterHealthStore,
  ClusterRecord,
  ClusterRegistry,
  InvalidClusterRecord,
  OwnershipStore,
} from '../ports/index.js';
import { type CheckConnection, checkCluster } from './check-cluster.js';
import { reviewOwnershipBeforeAdd } from './check-ownership.js';
import { clusterRecordFromOptions } from './cluster-record-from-options.js';
import type { ClustersCommand } from './clusters-command.js';
import {
  describeAuth,
  formatCheck,
  formatClusterTable,
} from './format-clusters-output.js';
import { clusterStates, runtimeState } from './runtime-state.js';

/** A registry the CLI can also write (DynamoClusterRegistry is one). */
export interface ClusterRegistryAdmin extends ClusterRegistry {
  put(record: ClusterRecord): Promise<void> | void;
  remove(id: string): Promise<void> | void;
}

/** What the commands run against, built once the table is known. */
export interface ClustersCliDeps {
  registry: ClusterRegistryAdmin;
  /** Opens a cluster as the deployed functions do (ClusterConnector). */
  connect(record: ClusterRecord): Promise<CheckConnection>;
  /** Returns the record's API server URL (from the file for kubeconfig). */
  serverOf(record: ClusterRecord): string;
  /** Returns a file's text (CA bundles, kubeconfig files). */
  readTextFile(file: string): string;
  /** Fences set by fight detection. */
  ownership: Pick<OwnershipStore, 'getFence' | 'clearFence'>;
  /** The clusters' breakers. */
  health: Pick<ClusterHealthStore, 'get'>;
  /** The bridges' leases: their state, and a resync after an unfence. */
  leases: Pick<BridgeLeaseStore, 'requestResync' | 'forget' | 'peek'>;
}

/** A command's outcome: human lines, the `--json` document, the exit code. */
export interface Outcome {
  exitCode: number;
  lines: string[];
  json: unknown;
  /** Print on stderr: the command could not do its work. */
  error?: boolean;
}

export const failed = (message: string): Outcome => ({
  exitCode: 1,
  lines: [`error: ${message}`],
  json: { error: message },
  error: true,
});

/** Returns a record as `list --json` shows it (no credential in it). */
const summary = (record: ClusterRecord, deps: ClustersCliDeps) => ({
  id: record.id,
  server: deps.serverOf(record),
  auth: record.auth,
  mode: record.bridgeMode,
});

/** The lines that name registry items the reconciler skips. */
const invalidLines = (invalid: readonly InvalidClusterRecord[]): string[] =>
  invalid.map((i) => `invalid record ${i.key} (skipped): ${i.error}`);

const list = async (deps: ClustersCliDeps): Promise<Outcome> => {
  const { records, invalid } = await deps.registry.list();
  const states = await clusterStates(records, deps);
  return {
    // Exit 1 while an item is skipped: scripts should notice.
    exitCode: invalid.length > 0 ? 1 : 0,
    lines: [
      ...formatClusterTable(records, deps.serverOf, states),
      ...invalidLines(invalid),
    ],
    json: {
      clusters: records.map((r) => ({
        ...summary(r, deps),
        ...states.get(r.id),
      })),
      invalid,
    },
  };
};

const add = async (
  command: Extract<ClustersCommand, { name: 'add' }>,
  deps: ClustersCliDeps
): Promise<Outcome> => {
  const record = clusterRecordFromOptions(command.add, {
    readTextFile: deps.readTextFile,
    region: command.table.region,
  });
  const existing = await deps.registry.get(record.id);
  if (existing !== undefined && !command.add.replace) {
    return failed(
      `cluster ${record.id} is already registered (${describeAuth(existing.auth)}); pass --replace to overwrite it`
    );
  }
  // Two ids for one API server would be two reconcilers of one cluster,
  // with separate queues and expectations: duplicate pods.
  const server = deps.serverOf(record);
  const twin = (await deps.registry.list()).records.find(
    (r) => r.id !== record.id && server !== '' && deps.serverOf(r) === server
  );
  if (twin !== undefined) {
    return failed(
      `${server} is already registered as cluster ${twin.id}; one API server takes one registration`
    );
  }
  const review = await reviewOwnershipBeforeAdd(record, command.add.skipCheck, {
    connect: deps.connect,
    timeoutMs: command.timeoutMs,
  });
  if (review.refusal !== undefined) return failed(review.refusal);
  await deps.registry.put(record);
  const verb = existing === undefined ? 'added' : 'replaced';
  return {
    exitCode: 0,
    lines: [
      `${verb} cluster ${record.id}: ${deps.serverOf(record) || '-'}, ${record.bridgeMode} mode, auth ${describeAuth(record.auth)}`,
      ...review.warnings,
      `next: npm run clusters -- check --id ${record.id} --table ${command.table.tableName}`,
    ],
    json: { [verb]: record.id, record: summary(record, deps) },
  };
};

const check = async (
  command: Extract<ClustersCommand, { name: 'check' }>,
  deps: ClustersCliDeps
): Promise<Outcome> => {
  let records: ClusterRecord[];
  let invalid: InvalidClusterRecord[] = [];
  if (command.id === undefined) {
    ({ records, invalid } = await deps.registry.list());
    if (records.length === 0 && invalid.length === 0) {
      return failed(`no clusters registered in ${command.table.tableName}`);
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
  command: Extract<ClustersCommand, { name: 'unfence' }>,
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

const remove = async (
  command: Extract<ClustersCommand, { name: 'remove' }>,
  deps: ClustersCliDeps
): Promise<Outcome> => {
  const record = await deps.registry.get(command.id);
  if (record === undefined) {
    return failed(
      `cluster ${command.id} is not registered in ${command.table.tableName}; nothing removed`
    );
  }
  // A cluster registered again under this id must not resume from these
  // bookmarks, nor start fenced; the record goes last, so a failure here
  // leaves it for a second remove.
  await deps.leases.forget(command.id);
  await deps.ownership.clearFence(command.id);
  await deps.registry.remove(command.id);
  return {
    exitCode: 0,
    lines: [
      `removed cluster ${command.id} (${deps.serverOf(record) || describeAuth(record.auth)}) from ${command.table.tableName}, with its bookmarks and fence`,
    ],
    json: { removed: command.id },
  };
};

/** Runs one parsed command (not `help`) and returns its outcome. */
export const runClustersCommand = (
  command: Exclude<ClustersCommand, { name: 'help' }>,
  deps: ClustersCliDeps
): Promise<Outcome> => {
  switch (command.name) {
    case 'list':
      return list(deps);
    case 'add':
      return add(command, deps);
    case 'check':
      return check(command, deps);
    case 'remove':
      return remove(command, deps);
    case 'unfence':
      return unfence(command, deps);
  }
};
