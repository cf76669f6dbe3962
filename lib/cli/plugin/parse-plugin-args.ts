/**
 * The command line of `kubectl dsr`, kubectl's way: `rollout
 * status|history|undo|pause|resume|restart TARGET`, `set partition TARGET
 * VALUE`, `set image TARGET C=IMG…`, `get [NAME]`, `plan`, `explain`,
 * `migrate`, `version`, `completion SHELL`; TARGET is `advds/NAME` (or the
 * kind's other names, or a bare NAME). Each verb takes the flags its entry
 * in plugin-verbs.ts lists, and no other.
 */
import { CliUsageError } from '../cli-usage-error.js';
import { type DryRun, parseDryRun } from './dry-run.js';
import {
  type InspectCommand,
  parseInspectCommand,
} from './parse-inspect-args.js';
import { splitCommandLine } from './plugin-command-line.js';
import { STATE_FLAGS } from './plugin-flags.js';
import {
  durationMs,
  type MigrateSource,
  migrateSource,
  nameOfTarget,
  parseImages,
  rolloutTarget,
} from './plugin-targets.js';

/** Where kubectl's flags point. */
interface KubectlFlags {
  namespace?: string;
  kubeconfig?: string;
  context?: string;
}

/** How `get` prints (kubectl's `-o`); `table` when not given. */
export type GetOutput = 'table' | 'json' | 'yaml' | 'wide' | 'name';

/** The shells `completion` writes a script for. */
export type Shell = 'bash' | 'zsh';

/** One parsed `kubectl dsr` invocation. */
export type PluginCommand =
  | {
      verb: 'help';
      /** The verb's words (none: the plugin's page). */
      topic: readonly string[];
      /** stderr: a group named without its verb, which kubectl refuses. */
      stream: 'stdout' | 'stderr';
    }
  | { verb: 'version' }
  | { verb: 'completion'; shell: Shell }
  | ({
      verb:
        | 'status'
        | 'history'
        | 'undo'
        | 'pause'
        | 'resume'
        | 'restart'
        | 'partition';
      name: string;
      /** An apps/v1 DaemonSet the OnDelete mode rolls out (`ds/NAME`). */
      native?: true;
      watch: boolean;
      timeoutMs?: number;
      revision?: number;
      value?: string;
      /** How the verbs that write send their write (kubectl's --dry-run). */
      dryRun: DryRun;
    } & KubectlFlags)
  | ({
      verb: 'image';
      name: string;
      /** The updates, in order. */
      images: { container: string; image: string }[];
      dryRun: DryRun;
    } & KubectlFlags)
  | ({
      verb: 'migrate';
      name: string;
      /** Which kind the object is now. */
      from: MigrateSource;
      dryRun: DryRun;
      timeoutMs?: number;
    } & KubectlFlags)
  | (InspectCommand & KubectlFlags)
  | ({
      verb: 'get';
      name?: string;
      allNamespaces: boolean;
      output: GetOutput;
      selector?: string;
      watch: boolean;
    } & KubectlFlags);

const GET_OUTPUTS: readonly GetOutput[] = ['json', 'yaml', 'wide', 'name'];

/** Returns get's `-o`; an unknown one is kubectl's refusal. */
const getOutput = (o: string | undefined): GetOutput => {
  if (o === undefined) return 'table';
  if ((GET_OUTPUTS as readonly string[]).includes(o)) return o as GetOutput;
  throw new CliUsageError([
    `unable to match a printer suitable for the output format "${o}", allowed formats are: ${GET_OUTPUTS.join(',')}`,
  ]);
};

const unexpected = (args: readonly (string | undefined)[]) => {
  const given = args.filter((a) => a !== undefined);
  if (given.length > 0) {
    throw new CliUsageError([`unexpected argument(s): ${given.join(' ')}`]);
  }
};

/** Returns the command `argv` asks for; throws CliUsageError when wrong. */
export const parsePluginArgs = (argv: readonly string[]): PluginCommand => {
  const line = splitCommandLine(argv);
  if (line.kind === 'help') {
    return { verb: 'help', topic: line.topic, stream: line.stream };
  }
  const { values: v, args } = line;
  const [word, sub] = line.verb.path;
  const common = {
    ...(v.namespace ? { namespace: v.namespace } : {}),
    ...(v.kubeconfig ? { kubeconfig: v.kubeconfig } : {}),
    ...(v.context ? { context: v.context } : {}),
  };
  const dryRun = parseDryRun(v['dry-run']);
  const timeout = v.timeout ? { timeoutMs: durationMs(v.timeout) } : {};
  const [target, value, ...extra] = args;
  switch (word) {
    case 'version':
      unexpected(args);
      return { verb: 'version' };
    case 'completion':
      if (target !== 'bash' && target !== 'zsh') {
        throw new CliUsageError([
          target === undefined
            ? 'Shell not specified.'
            : `Unsupported shell type "${target}".`,
        ]);
      }
      unexpected([value, ...extra]);
      return { verb: 'completion', shell: target };
    case 'plan':
    case 'explain':
      return {
        ...parseInspectCommand(
          word,
          args,
          Object.fromEntries(
            (['ds', 'output', ...STATE_FLAGS] as const).flatMap((k) =>
              v[k] === undefined ? [] : [[k, v[k]]]
            )
          )
        ),
        ...common,
      };
    case 'get':
      unexpected([value, ...extra]);
      return {
        verb: 'get',
        ...(target ? { name: nameOfTarget(target) } : {}),
        allNamespaces: v['all-namespaces'] === 'true',
        output: getOutput(v.output),
        ...(v.selector === undefined ? {} : { selector: v.selector }),
        watch: v.watch === 'true',
        ...common,
      };
    case 'migrate':
      unexpected([value, ...extra]);
      return {
        verb: 'migrate',
        ...migrateSource(target),
        ...common,
        dryRun,
        ...timeout,
      };
  }
  if (sub === 'image') {
    return {
      verb: 'image',
      name: nameOfTarget(target),
      images: parseImages([value, ...extra].filter((a) => a !== undefined)),
      ...common,
      dryRun,
    };
  }
  if (sub === 'partition' && (value === undefined || !/^\d+%?$/.test(value))) {
    throw new CliUsageError([
      'partition must be a non-negative integer or a percentage, e.g. 3 or 20%',
    ]);
  }
  unexpected(sub === 'partition' ? extra : [value, ...extra]);
  const revision = v['to-revision'] ?? v.revision;
  if (revision !== undefined && !/^\d+$/.test(revision)) {
    throw new CliUsageError([`invalid revision "${revision}"`]);
  }
  return {
    verb: (sub ?? 'status') as 'status',
    ...rolloutTarget(target, sub ?? 'status'),
    ...common,
    watch: (v.watch ?? 'true') !== 'false',
    ...timeout,
    ...(revision !== undefined ? { revision: Number(revision) } : {}),
    ...(value !== undefined ? { value } : {}),
    dryRun,
  };
};
