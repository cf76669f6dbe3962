/**
 * The command line of `kubectl dsr`, kubectl's way: `rollout
 * status|history|undo|pause|resume|restart TARGET`, `set partition TARGET
 * VALUE`, `get [NAME]`; TARGET is `advds/NAME` (or the kind's other names,
 * or a bare NAME); kubectl's flags where they exist.
 */
import { parseArgs } from 'node:util';
import { CliUsageError } from '../cli-usage-error.js';
import { BARE_DRY_RUN, type DryRun, parseDryRun } from './dry-run.js';
import {
  type InspectCommand,
  parseInspectCommand,
} from './parse-inspect-args.js';

/** Where kubectl's flags point. */
interface KubectlFlags {
  namespace?: string;
  kubeconfig?: string;
  context?: string;
}

/** One parsed `kubectl dsr` invocation. */
export type PluginCommand =
  | { verb: 'help' }
  | {
      verb:
        | 'status'
        | 'history'
        | 'undo'
        | 'pause'
        | 'resume'
        | 'restart'
        | 'partition';
      name: string;
      namespace?: string;
      kubeconfig?: string;
      context?: string;
      watch: boolean;
      timeoutMs?: number;
      revision?: number;
      value?: string;
      /** How the verbs that write send their write (kubectl's --dry-run). */
      dryRun: DryRun;
    }
  | {
      verb: 'migrate';
      name: string;
      /** Which kind the object is now. */
      from: 'apps/v1' | 'apps.dsr.dev/v1beta1' | 'apps.kruise.io/v1beta1';
      namespace?: string;
      kubeconfig?: string;
      context?: string;
      dryRun: DryRun;
      timeoutMs?: number;
    }
  | (InspectCommand & KubectlFlags)
  | {
      verb: 'get';
      name?: string;
      namespace?: string;
      allNamespaces: boolean;
      kubeconfig?: string;
      context?: string;
    };

const KIND_NAMES = [
  'advds',
  'advanceddaemonset',
  'advanceddaemonsets',
  'advanceddaemonset.apps.dsr.dev',
  'advanceddaemonsets.apps.dsr.dev',
];

const ROLLOUT = ['status', 'history', 'undo', 'pause', 'resume', 'restart'];
/** The rollout verbs that write, and so take --dry-run. */
const WRITING_ROLLOUT = ['undo', 'pause', 'resume', 'restart'];

/** The kinds `migrate` moves from, by the names kubectl users type. */
const MIGRATE_SOURCES: Record<
  string,
  Extract<PluginCommand, { verb: 'migrate' }>['from']
> = {
  ds: 'apps/v1',
  daemonset: 'apps/v1',
  daemonsets: 'apps/v1',
  'daemonset.apps': 'apps/v1',
  'daemonsets.apps': 'apps/v1',
  'daemonset.apps.kruise.io': 'apps.kruise.io/v1beta1',
  'daemonsets.apps.kruise.io': 'apps.kruise.io/v1beta1',
  ...Object.fromEntries(
    KIND_NAMES.map((k) => [k, 'apps.dsr.dev/v1beta1' as const])
  ),
};

/** Returns what `migrate TARGET` moves: its current kind and name. */
const migrateSource = (target: string | undefined) => {
  const [kind = '', name, ...rest] = (target ?? '').split('/');
  const from = MIGRATE_SOURCES[kind.toLowerCase()];
  if (from === undefined || name === undefined || rest.length > 0) {
    throw new CliUsageError([
      'migrate takes ds/NAME, daemonsets.apps.kruise.io/NAME or advds/NAME',
    ]);
  }
  return { from, name };
};

/** Returns the object name of `advds/NAME` (or of a bare NAME). */
const nameOfTarget = (target: string | undefined): string => {
  if (target === undefined) {
    throw new CliUsageError(['required resource not specified']);
  }
  const [kind, name, ...rest] = target.split('/');
  if (name === undefined) return kind ?? '';
  if (!KIND_NAMES.includes(kind?.toLowerCase() ?? '') || rest.length > 0) {
    throw new CliUsageError([
      `the server doesn't have a resource type "${kind}" here: use advds/NAME`,
    ]);
  }
  return name;
};

/** Returns milliseconds of a kubectl duration (`90s`, `5m`, `1h`, `0`). */
const durationMs = (text: string): number => {
  const m = /^(\d+)(ms|s|m|h)?$/.exec(text);
  if (m === null) throw new CliUsageError([`invalid duration "${text}"`]);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[m[2] ?? 's'] ?? 1;
  return Number(m[1]) * unit;
};

/** The flags only plan and explain take. */
const INSPECT_FLAGS = [
  'ds',
  'output',
  'cluster',
  'table',
  'stage',
  'region',
  'endpoint',
] as const;

/** Returns the command `argv` asks for; throws CliUsageError when wrong. */
export const parsePluginArgs = (argv: readonly string[]): PluginCommand => {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(
      argv.map((a) =>
        a === '--watch' || a === '-w'
          ? '--watch=true'
          : a === '--dry-run'
            ? BARE_DRY_RUN
            : a
      )
    );
  } catch (cause) {
    throw new CliUsageError([(cause as Error).message], { cause });
  }
  const {
    values: v,
    positionals: [group, sub, target, value, ...extra],
  } = parsed;
  if (v.help || group === undefined || group === 'help')
    return { verb: 'help' };
  const common = {
    ...(v.namespace ? { namespace: v.namespace } : {}),
    ...(v.kubeconfig ? { kubeconfig: v.kubeconfig } : {}),
    ...(v.context ? { context: v.context } : {}),
  };
  const dryRun = parseDryRun(v['dry-run']);
  const writes =
    group === 'migrate' ||
    group === 'set' ||
    (group === 'rollout' && WRITING_ROLLOUT.includes(sub ?? ''));
  if (dryRun !== 'none' && !writes) {
    // kubectl's read verbs have no --dry-run flag.
    throw new CliUsageError(['unknown flag: --dry-run']);
  }
  if (group === 'plan' || group === 'explain') {
    return {
      ...parseInspectCommand(
        group,
        [sub, target, value, ...extra],
        Object.fromEntries(
          INSPECT_FLAGS.flatMap((k) => (v[k] === undefined ? [] : [[k, v[k]]]))
        )
      ),
      ...common,
    };
  }
  if (INSPECT_FLAGS.some((k) => v[k] !== undefined)) {
    throw new CliUsageError([
      '--ds, -o, --cluster, --table, --stage, --region and --endpoint apply to plan and explain only',
    ]);
  }
  if (group === 'get') {
    return {
      verb: 'get',
      ...(sub ? { name: nameOfTarget(sub) } : {}),
      allNamespaces: v['all-namespaces'] ?? false,
      ...common,
    };
  }
  if (group === 'migrate') {
    if (target !== undefined) {
      throw new CliUsageError([
        `unexpected argument(s): ${[target, value, ...extra].join(' ')}`,
      ]);
    }
    return {
      verb: 'migrate',
      ...migrateSource(sub),
      ...common,
      dryRun,
      ...(v.timeout ? { timeoutMs: durationMs(v.timeout) } : {}),
    };
  }
  const rollout = group === 'rollout' && ROLLOUT.includes(sub ?? '');
  const partition = group === 'set' && sub === 'partition';
  if (!rollout && !partition) {
    throw new CliUsageError([`unknown command "${[group, sub].join(' ')}"`]);
  }
  if (extra.length > 0 || (rollout && value !== undefined)) {
    throw new CliUsageError([
      `unexpected argument(s): ${[value, ...extra].join(' ')}`,
    ]);
  }
  if (partition && (value === undefined || !/^\d+%?$/.test(value))) {
    throw new CliUsageError([
      'partition must be a non-negative integer or a percentage, e.g. 3 or 20%',
    ]);
  }
  const revision = v['to-revision'] ?? v.revision;
  if (revision !== undefined && !/^\d+$/.test(revision)) {
    throw new CliUsageError([`invalid revision "${revision}"`]);
  }
  return {
    verb: partition ? 'partition' : (sub as 'status'),
    name: nameOfTarget(target),
    ...common,
    watch: (v.watch ?? 'true') !== 'false',
    ...(v.timeout ? { timeoutMs: durationMs(v.timeout) } : {}),
    ...(revision !== undefined ? { revision: Number(revision) } : {}),
    ...(value !== undefined ? { value } : {}),
    dryRun,
  };
};

const parse = (args: string[]) =>
  parseArgs({
    args,
    allowPositionals: true,
    strict: true,
    options: {
      namespace: { type: 'string', short: 'n' },
      kubeconfig: { type: 'string' },
      context: { type: 'string' },
      watch: { type: 'string' },
      timeout: { type: 'string' },
      revision: { type: 'string' },
      'to-revision': { type: 'string' },
      'all-namespaces': { type: 'boolean', short: 'A' },
      'dry-run': { type: 'string' },
      ds: { type: 'string' },
      output: { type: 'string', short: 'o' },
      cluster: { type: 'string' },
      table: { type: 'string' },
      stage: { type: 'string' },
      region: { type: 'string' },
      endpoint: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
