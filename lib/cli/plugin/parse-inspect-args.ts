/**
 * The command lines of `kubectl dsr plan TARGET` and `kubectl dsr explain
 * node NODE --ds TARGET`. TARGET names a DaemonSet of either kind:
 * `ds/NAME` (apps/v1), `advds/NAME` (the own kind), `NAMESPACE/NAME` or
 * `NAME` (the own kind when one exists by that name, else apps/v1).
 */
import { CliUsageError } from '../cli-usage-error.js';

/** Which DaemonSet a plan or an explanation is about. */
export interface DaemonSetTarget {
  /** undefined: the own kind if it exists, else apps/v1. */
  kind?: 'apps/v1' | 'apps.dsr.dev/v1beta1';
  namespace?: string;
  name: string;
}

/** How plan and explain print. */
export type InspectOutput = 'text' | 'json' | 'yaml';

/** A parsed `plan` or `explain` invocation. */
export type InspectCommand =
  | { verb: 'plan'; target: DaemonSetTarget; output: InspectOutput }
  | {
      verb: 'explain';
      node: string;
      target: DaemonSetTarget;
      output: InspectOutput;
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
  flags: { ds?: string; output?: string }
): InspectCommand => {
  const output = parseInspectOutput(flags.output);
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
    return { verb, target: parseDaemonSetTarget(target), output };
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
  return { verb, node, target: parseDaemonSetTarget(flags.ds), output };
};
