/**
 * The command lines of `kubectl dsr plan TARGET` and `kubectl dsr explain
 * node NODE --ds TARGET`. TARGET names a DaemonSet of either kind:
 * `ds/NAME` (apps/v1), `advds/NAME` (the own kind), `NAMESPACE/NAME` or
 * `NAME` (the own kind when one exists by that name, else apps/v1).
 */
import { CliUsageError } from '../cli-usage-error.js';
import type { TableLocator } from '../parse-table-locator.js';
import { tableLocatorOf } from '../parse-table-locator.js';

/** Which DaemonSet a plan or an explanation is about. */
export interface DaemonSetTarget {
  /** undefined: the own kind if it exists, else apps/v1. */
  kind?: 'apps/v1' | 'apps.dsr.dev/v1beta1';
  namespace?: string;
  name: string;
}

/** How plan and explain print. */
export type InspectOutput = 'text' | 'json' | 'yaml';

/**
 * Where the reconcilers keep the cluster's expectations and failed-pod
 * backoff (the state table), and the cluster's registered id.
 */
export interface StateSource {
  locator: TableLocator;
  cluster: string;
}

/** A parsed `plan` or `explain` invocation. */
export type InspectCommand = (
  | { verb: 'plan'; target: DaemonSetTarget; output: InspectOutput }
  | {
      verb: 'explain';
      node: string;
      target: DaemonSetTarget;
      output: InspectOutput;
    }
) & { state?: StateSource };

/** The flags that name the state table. */
export interface StateFlags {
  cluster?: string;
  table?: string;
  stage?: string;
  region?: string;
  endpoint?: string;
}

/**
 * Returns where to read the reconcilers' state, or undefined when no flag
 * names it; throws CliUsageError when the flags are incomplete.
 */
const stateSourceOf = (flags: StateFlags): StateSource | undefined => {
  const { cluster } = flags;
  const table = {
    table: flags.table,
    stage: flags.stage,
    region: flags.region,
    endpoint: flags.endpoint,
  };
  const named = Object.values(table).some((v) => v !== undefined);
  if (cluster === undefined && !named) return undefined;
  const problems: string[] = [];
  if (cluster === undefined) {
    problems.push(
      '--cluster ID is needed with --table or --stage: the id the cluster is registered under'
    );
  }
  const locator =
    table.table === undefined && table.stage === undefined
      ? undefined
      : tableLocatorOf(table, {}, problems);
  if (locator === undefined) {
    problems.push(
      '--cluster needs --table NAME or --stage NAME: where the reconcilers keep their state'
    );
  }
  if (problems.length > 0) throw new CliUsageError(problems);
  return { locator: locator as TableLocator, cluster: cluster as string };
};

const KIND_PREFIXES: Record<string, DaemonSetTarget['kind']> = {
  ds: 'apps/v1',
  daemonset: 'apps/v1',
  daemonsets: 'apps/v1',
  'daemonset.apps': 'apps/v1',
  'daemonsets.apps': 'apps/v1',
  advds: 'apps.dsr.dev/v1beta1',
  advanceddaemonset: 'apps.dsr.dev/v1beta1',
  advanceddaemonsets: 'apps.dsr.dev/v1beta1',
  'advanceddaemonset.apps.dsr.dev': 'apps.dsr.dev/v1beta1',
  'advanceddaemonsets.apps.dsr.dev': 'apps.dsr.dev/v1beta1',
};

/** Returns the DaemonSet `text` names; throws CliUsageError when malformed. */
export const parseDaemonSetTarget = (text: string): DaemonSetTarget => {
  const parts = text.split('/');
  const [first = '', second] = parts;
  if (parts.length > 2 || first === '' || second === '') {
    throw new CliUsageError([
      `"${text}" is not a DaemonSet: use ds/NAME, advds/NAME, NAMESPACE/NAME or NAME`,
    ]);
  }
  if (second === undefined) return { name: first };
  const kind = KIND_PREFIXES[first.toLowerCase()];
  return kind === undefined
    ? { namespace: first, name: second }
    : { kind, name: second };
};

/** Returns the output format of `-o`; throws CliUsageError when unknown. */
export const parseInspectOutput = (o: string | undefined): InspectOutput => {
  if (o === undefined) return 'text';
  if (o === 'json' || o === 'yaml') return o;
  throw new CliUsageError([`unknown output format "${o}": use json or yaml`]);
};

/**
 * Returns the `plan` or `explain` command of the positionals after the
 * verb (`plan TARGET`, `explain node NODE`) and the `--ds` and `-o` flags.
 */
export const parseInspectCommand = (
  verb: 'plan' | 'explain',
  args: readonly (string | undefined)[],
  flags: { ds?: string; output?: string } & StateFlags
): InspectCommand => {
  const output = parseInspectOutput(flags.output);
  const source = stateSourceOf(flags);
  const state = source === undefined ? {} : { state: source };
  const present = args.filter((a): a is string => a !== undefined);
  if (verb === 'plan') {
    const [target, ...extra] = present;
    if (target === undefined) {
      throw new CliUsageError(['plan needs a DaemonSet: plan NAMESPACE/NAME']);
    }
    if (extra.length > 0 || flags.ds !== undefined) {
      throw new CliUsageError([
        `unexpected argument(s): ${[...extra, ...(flags.ds ? ['--ds'] : [])].join(' ')}`,
      ]);
    }
    return { verb, target: parseDaemonSetTarget(target), output, ...state };
  }
  const [what, node, ...extra] = present;
  if (what !== 'node' || node === undefined || extra.length > 0) {
    throw new CliUsageError([
      'explain takes: explain node NODE --ds NAMESPACE/NAME',
    ]);
  }
  if (flags.ds === undefined) {
    throw new CliUsageError([
      'explain needs the DaemonSet: --ds NAMESPACE/NAME',
    ]);
  }
  return {
    verb,
    node,
    target: parseDaemonSetTarget(flags.ds),
    output,
    ...state,
  };
};
