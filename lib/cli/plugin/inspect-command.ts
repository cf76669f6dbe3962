/**
 * Runs `plan` and `explain`: finds the DaemonSet (the own kind first when
 * the target does not say), dry-runs its next sync on the live cluster and
 * prints the report as text, JSON or YAML. Needs only read access.
 */
import { dump as dumpYaml } from 'js-yaml';
import type { ClusterReader } from '../../ports/index.js';
import {
  ADVANCED_DAEMON_SET,
  type DaemonSetKind,
  NATIVE_DAEMON_SET,
} from '../../reconcile/k8s/daemon-set-kind.js';
import {
  planNextSync,
  type ReconcilerState,
} from '../../sync/plan-next-sync.js';
import { CliUsageError } from '../cli-usage-error.js';
import type { TableLocator } from '../parse-table-locator.js';
import { explainReport, formatExplanation } from './explain-command.js';
import type { InspectCommand, InspectOutput } from './parse-inspect-args.js';
import { formatPlan, planReport } from './plan-command.js';

/** The cluster id of a dry run that reads no state (any id would do). */
const NO_CLUSTER = 'kubectl';

/** Opens the reconcilers' state in the table a locator names. */
export type OpenState = (locator: TableLocator) => Promise<ReconcilerState>;

/** Returns the readers to try, in order, for the target's kind. */
const kindsToTry = (kind: InspectCommand['target']['kind']): DaemonSetKind[] =>
  kind === 'apps/v1'
    ? [NATIVE_DAEMON_SET]
    : kind === undefined
      ? [ADVANCED_DAEMON_SET, NATIVE_DAEMON_SET]
      : [ADVANCED_DAEMON_SET];

/** Returns the reconcilers' state when the command names its table. */
const stateOf = async (
  c: InspectCommand,
  openState: OpenState | undefined
): Promise<ReconcilerState | undefined> => {
  if (c.state === undefined) return undefined;
  if (openState === undefined) {
    throw new CliUsageError(['this build cannot read the state table']);
  }
  return openState(c.state.locator);
};

const render = (
  report: object,
  output: InspectOutput,
  text: () => string[]
): string =>
  output === 'json'
    ? `${JSON.stringify(report, null, 2)}\n`
    : output === 'yaml'
      ? dumpYaml(report, { noRefs: true })
      : `${text().join('\n')}\n`;

/** What a run prints, and how it exits. */
export interface InspectOutcome {
  exitCode: number;
  stdout: string;
  stderr: string;
}

const notFound = (what: string): InspectOutcome => ({
  exitCode: 1,
  stdout: '',
  stderr: `Error from server (NotFound): ${what}\n`,
});

/**
 * Returns the reader, and the first error its reads threw: a sync's dry run
 * keeps only the message, and kubectl words a 401, a 403 or a refused
 * connection by the error itself.
 */
const recording = (reader: ClusterReader) => {
  const failed: { error?: unknown } = {};
  const wrapped = new Proxy(reader, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        try {
          return await (value as (...a: unknown[]) => unknown).apply(
            target,
            args
          );
        } catch (e) {
          failed.error ??= e;
          throw e;
        }
      };
    },
  });
  return { wrapped, failed };
};

/**
 * Returns what `plan` or `explain` prints; NotFound as kubectl says it when
 * no DaemonSet of the target's kinds has that name, or the node is missing.
 * Throws the read's own error when the DaemonSet could not be read.
 */
export const runInspectCommand = async (
  c: InspectCommand,
  readerFor: (kind: DaemonSetKind) => ClusterReader,
  namespace: string,
  deps: { now: () => number; openState?: OpenState }
): Promise<InspectOutcome> => {
  const { now } = deps;
  const ns = c.target.namespace ?? namespace;
  const cluster = c.state?.cluster ?? NO_CLUSTER;
  const key = `${cluster}/${ns}/${c.target.name}`;
  const state = await stateOf(c, deps.openState);
  for (const kind of kindsToTry(c.target.kind)) {
    const { wrapped: reader, failed } = recording(readerFor(kind));
    const next = await planNextSync(key, {
      reader,
      clock: { now },
      ...(state === undefined ? {} : { state }),
    });
    const { daemonSet } = next;
    if (daemonSet === undefined && next.error !== undefined) {
      throw failed.error ?? new Error(next.error);
    }
    if (daemonSet === undefined) continue;
    if (c.verb === 'plan') {
      const report = planReport({ ...next, daemonSet }, now());
      return printed(render(report, c.output, () => formatPlan(report)));
    }
    const report = explainReport(
      { ...next, daemonSet },
      c.node,
      now(),
      cluster
    );
    if (!report.nodeExists) return notFound(`nodes "${c.node}" not found`);
    return printed(render(report, c.output, () => formatExplanation(report)));
  }
  return notFound(
    `no DaemonSet "${c.target.name}" in namespace ${ns}${c.target.kind === undefined ? ' (of either kind)' : ''}`
  );
};

const printed = (stdout: string): InspectOutcome => ({
  exitCode: 0,
  stdout,
  stderr: '',
});
