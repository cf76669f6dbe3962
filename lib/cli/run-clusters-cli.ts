/**
 * The cluster registry CLI behind `npm run clusters`: parses the command
 * line, runs list / add / check / remove against the registry, and returns
 * what to print and the exit code (0 ok, 1 failed, 2 bad usage) instead of
 * printing, so tests call it directly.
 */
import type {
  ClusterHealthStore,
  ClusterRecord,
  ClusterRegistry,
  OwnershipStore,
} from '../ports/index.js';
import { type CheckConnection, checkCluster } from './check-cluster.js';
import { reviewOwnershipBeforeAdd } from './check-ownership.js';
import { CliUsageError } from './cli-usage-error.js';
import { clusterRecordFromOptions } from './cluster-record-from-options.js';
import {
  CLUSTERS_USAGE,
  type ClustersCommand,
  type TableTarget,
} from './clusters-command.js';
import { describeError } from './describe-error.js';
import {
  describeAuth,
  formatCheck,
  formatClusterTable,
} from './format-clusters-output.js';
import { parseClustersArgs } from './parse-clusters-args.js';
import { runtimeState } from './runtime-state.js';

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
}

/** What one run prints, and how it exits. */
export interface CliOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The exit code of a run with a bad command line. */
export const USAGE_EXIT_CODE = 2;

/** A command's outcome: human lines, the `--json` document, the exit code. */
interface Outcome {
  exitCode: number;
  lines: string[];
  json: unknown;
  /** Print on stderr: the command could not do its work. */
  error?: boolean;
}

const failed = (message: string): Outcome => ({
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

const list = async (deps: ClustersCliDeps): Promise<Outcome> => {
  const records = await deps.registry.list();
  return {
    exitCode: 0,
    lines: formatClusterTable(records, deps.serverOf),
    json: records.map((r) => summary(r, deps)),
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
  if (command.id === undefined) {
    records = await deps.registry.list();
    if (records.length === 0) {
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
    ...formatCheck(c),
    ...(states[i]?.lines ?? []),
  ]);
  if (checks.length > 1) {
    lines.push('', `${passed} of ${checks.length} clusters OK`);
  }
  const ok = passed === checks.length;
  return {
    exitCode: ok ? 0 : 1,
    lines,
    json: {
      ok,
      clusters: checks.map((c, i) => ({ ...c, runtime: states[i]?.json })),
    },
  };
};

const unfence = async (
  command: Extract<ClustersCommand, { name: 'unfence' }>,
  deps: ClustersCliDeps
): Promise<Outcome> => {
  const fence = await deps.ownership.getFence(command.id);
  await deps.ownership.clearFence(command.id);
  return {
    exitCode: 0,
    lines: [
      fence === undefined
        ? `cluster ${command.id} was not fenced`
        : `cleared the fence of cluster ${command.id}; the reconciler acts on it again`,
    ],
    json: { unfenced: command.id, wasFenced: fence !== undefined },
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
  await deps.registry.remove(command.id);
  return {
    exitCode: 0,
    lines: [
      `removed cluster ${command.id} (${deps.serverOf(record) || describeAuth(record.auth)}) from ${command.table.tableName}`,
    ],
    json: { removed: command.id },
  };
};

/** Returns the lines of an error: every problem, every aggregated error. */
const errorLines = (e: unknown): string[] => {
  if (e instanceof CliUsageError) return e.problems.map((p) => `error: ${p}`);
  if (e instanceof AggregateError) {
    return [
      `error: ${e.message}`,
      ...e.errors.map((x) => `  ${describeError(x)}`),
    ];
  }
  return [`error: ${describeError(e)}`];
};

const runCommand = (
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

const render = (outcome: Outcome, json: boolean): string =>
  json
    ? `${JSON.stringify(outcome.json, null, 2)}\n`
    : `${outcome.lines.join('\n')}\n`;

/**
 * Runs one invocation: `argv` are the arguments after `npm run clusters --`,
 * `env` supplies TABLE_NAME / AWS_REGION, `depsFor` builds the registry and
 * connector for the chosen table. Never throws: failures become an exit code
 * and lines on stderr (a failing check is a report on stdout, exit code 1).
 *
 * @example
 * const out = await runClustersCli(['list'], process.env, depsFor);
 * process.stdout.write(out.stdout);
 * process.exitCode = out.exitCode;
 */
export const runClustersCli = async (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  depsFor: (table: TableTarget) => ClustersCliDeps
): Promise<CliOutput> => {
  let command: ClustersCommand;
  try {
    command = parseClustersArgs(argv, env);
  } catch (e) {
    return {
      exitCode: USAGE_EXIT_CODE,
      stdout: '',
      stderr: `${[...errorLines(e), '', CLUSTERS_USAGE].join('\n')}`,
    };
  }
  if (command.name === 'help') {
    return { exitCode: 0, stdout: CLUSTERS_USAGE, stderr: '' };
  }
  try {
    const deps = depsFor(command.table);
    const outcome = await runCommand(command, deps);
    const text = render(outcome, command.json);
    return {
      exitCode: outcome.exitCode,
      stdout: outcome.error ? '' : text,
      stderr: outcome.error ? text : '',
    };
  } catch (e) {
    return {
      exitCode: e instanceof CliUsageError ? USAGE_EXIT_CODE : 1,
      stdout: '',
      stderr: `${errorLines(e).join('\n')}\n`,
    };
  }
};
