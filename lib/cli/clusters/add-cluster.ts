/**
 * `clusters add`: validates the options into a record, refuses a second
 * registration of an id or of an API server, checks the cluster as `check`
 * does (unless `--skip-check`) and writes the record only if it passes.
 * `--replace` by another cluster forgets the old one's bookmarks and fence.
 */
import type { ClusterRecord } from '../../ports/index.js';
import { CliUsageError } from '../cli-usage-error.js';
import type { TableLocator, TableTarget } from '../parse-table-locator.js';
import { failed, type Outcome } from '../render-output.js';
import { checkCluster } from './check-cluster.js';
import { clusterRecordFromOptions } from './cluster-record-from-options.js';
import {
  type ClustersCliDeps,
  forgetClusterState,
  recordSummary,
} from './clusters-cli-deps.js';
import type { RegistryCommand } from './clusters-command.js';
import { describeAuth, formatCheck } from './format-clusters-output.js';

type AddCommand = Extract<RegistryCommand, { name: 'add' }>;

/** Returns the options that name the table, as the operator gave them. */
const tableArgs = (target: TableLocator): string =>
  [
    'stage' in target
      ? `--stage ${target.stage}`
      : `--table ${target.tableName}`,
    target.region === undefined ? '' : ` --region ${target.region}`,
    'endpoint' in target && target.endpoint !== undefined
      ? ` --endpoint ${target.endpoint}`
      : '',
  ].join('');

/**
 * Returns the options with the EKS cluster's endpoint and CA asked of EKS,
 * when `--eks-cluster` came without `--server` and a CA (so that what is
 * registered is what EKS says, not a copy typed by hand).
 */
const withEksTarget = async (
  add: AddCommand['add'],
  table: TableTarget,
  deps: ClustersCliDeps
): Promise<AddCommand['add']> => {
  const region = add.eksRegion ?? table.region;
  const given = [add.server, add.caData, add.caFile];
  if (
    add.eksCluster === undefined ||
    region === undefined ||
    given.some((o) => o !== undefined)
  ) {
    return add;
  }
  if (deps.describeEksCluster === undefined) {
    throw new CliUsageError([
      '--eks-cluster without --server and a CA needs EKS access: give --server and --ca-data',
    ]);
  }
  const target = await deps.describeEksCluster({
    clusterName: add.eksCluster,
    region,
    ...(add.roleArn === undefined ? {} : { roleArn: add.roleArn }),
  });
  return { ...add, server: target.endpoint, caData: target.caData };
};

/**
 * Returns why the record may not be written under its id or server, and
 * the record it replaces.
 */
const conflictOf = async (
  command: AddCommand,
  record: ClusterRecord,
  deps: ClustersCliDeps
): Promise<{ refusal?: string; existing?: ClusterRecord }> => {
  const existing = await deps.registry.get(record.id);
  if (existing !== undefined && !command.add.replace) {
    return {
      refusal: `cluster ${record.id} is already registered (${describeAuth(existing.auth)}); pass --replace to overwrite it`,
    };
  }
  // Two ids for one API server would be two reconcilers of one cluster,
  // with separate queues and expectations: duplicate pods.
  const server = deps.serverOf(record);
  const twin = (await deps.registry.list()).records.find(
    (r) => r.id !== record.id && server !== '' && deps.serverOf(r) === server
  );
  if (twin !== undefined) {
    return {
      refusal: `${server} is already registered as cluster ${twin.id}; one API server takes one registration`,
    };
  }
  return existing === undefined ? {} : { existing };
};

/** Returns whether two records name one cluster (API server and EKS name). */
const isSameCluster = (
  a: ClusterRecord,
  b: ClusterRecord,
  deps: Pick<ClustersCliDeps, 'serverOf'>
): boolean => {
  const eks = (r: ClusterRecord) =>
    r.auth.type === 'eks' ? `${r.auth.region}/${r.auth.clusterName}` : '';
  return deps.serverOf(a) === deps.serverOf(b) && eks(a) === eks(b);
};

/**
 * Runs `clusters add`; options that do not make a valid record throw a
 * CliUsageError (exit code 2). A failed check prints its report and
 * writes nothing (exit code 1).
 */
export const addCluster = async (
  command: AddCommand,
  table: TableTarget,
  deps: ClustersCliDeps
): Promise<Outcome> => {
  const options = await withEksTarget(command.add, table, deps);
  const record = clusterRecordFromOptions(options, {
    readTextFile: deps.readTextFile,
    region: table.region,
  });
  const conflict = await conflictOf(command, record, deps);
  if (conflict.refusal !== undefined) return failed(conflict.refusal);
  const check = command.add.skipCheck
    ? undefined
    : await checkCluster(record, {
        connect: deps.connect,
        serverOf: deps.serverOf,
        timeoutMs: command.timeoutMs,
      });
  const report = check === undefined ? [] : formatCheck(check);
  if (check !== undefined && !check.ok) {
    const message = `cluster ${record.id} not registered: its check failed (--skip-check registers it anyway)`;
    return {
      exitCode: 1,
      lines: [...report, `error: ${message}`],
      json: { error: message, check },
      error: true,
    };
  }
  // Another cluster under the id must not resume from the old one's
  // bookmarks; the record goes last, so a failure leaves it to a retry.
  const { existing } = conflict;
  const forgot =
    existing !== undefined && !isSameCluster(existing, record, deps);
  if (forgot) await forgetClusterState(record.id, deps);
  await deps.registry.put(record);
  const verb = existing === undefined ? 'added' : 'replaced';
  return {
    exitCode: 0,
    lines: [
      ...report,
      `${verb} cluster ${record.id}: ${deps.serverOf(record) || '-'}, ${record.bridgeMode} mode, auth ${describeAuth(record.auth)}`,
      ...(forgot
        ? [
            `forgot the bookmarks and fence of the cluster ${record.id} named before (${deps.serverOf(existing) || describeAuth(existing.auth)})`,
          ]
        : []),
      ...(check === undefined
        ? [
            `next: npx dsr clusters check --id ${record.id} ${tableArgs(command.target)}`,
          ]
        : []),
    ],
    json: {
      [verb]: record.id,
      record: recordSummary(record, deps),
      ...(check === undefined ? {} : { check }),
    },
  };
};
