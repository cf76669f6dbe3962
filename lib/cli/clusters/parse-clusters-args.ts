/**
 * The command line of `npx dsr clusters <list|add|check|remove|unfence>`: parsed
 * with node:util `parseArgs` (strict), then checked per command, so an option
 * that does not apply is an error instead of being silently ignored.
 */
import { CliUsageError } from '../cli-usage-error.js';
import {
  checkOptionsApply,
  helpAskedFor,
  oneOfCommands,
  parseCommandLine,
} from '../parse-args-problems.js';
import {
  checkKubeconfigTarget,
  tableLocatorOf,
} from '../parse-table-locator.js';
import type { OutputFormat } from '../render-output.js';
import {
  type AddOptions,
  type ClustersCommand,
  COMMAND_NAMES,
  type CommandName,
  DEFAULT_CHECK_TIMEOUT_SECONDS,
  MAX_CHECK_TIMEOUT_SECONDS,
} from './clusters-command.js';
import {
  COMMAND_OPTIONS,
  COMMON_OPTIONS,
  OPTIONS,
} from './clusters-options.js';

/** Returns options and positionals; a refused one is a CliUsageError. */
const parseOrThrow = (argv: readonly string[]) =>
  parseCommandLine(argv, OPTIONS);

type Values = ReturnType<typeof parseOrThrow>['values'];

/** Returns the command's name; a missing or unknown one is a usage error. */
const commandNameOf = (name: string | undefined): CommandName =>
  oneOfCommands(name, COMMAND_NAMES, 'command');

/** Returns the output format (`-o`, `--json`), recording a wrong one. */
const outputOf = (
  name: CommandName,
  values: Values,
  problems: string[]
): OutputFormat => {
  const asked = values.output ?? (values.json ? 'json' : 'text');
  if (asked !== 'json' && asked !== 'yaml' && asked !== 'wide') {
    if (asked !== 'text' || values.output !== undefined) {
      problems.push(
        `unknown output format ${JSON.stringify(asked)}: use json, yaml or wide`
      );
    }
    return 'text';
  }
  if (values.json && asked !== 'json') {
    problems.push(`--json means -o json; it does not go with -o ${asked}`);
  }
  if (asked === 'wide' && name !== 'list') {
    problems.push('-o wide applies to list only');
  }
  if (values['no-headers'] && (asked === 'json' || asked === 'yaml')) {
    problems.push(`--no-headers applies to table output, not -o ${asked}`);
  }
  return asked;
};

/** Records a missing id and an unknown bridge mode. */
const checkIdAndMode = (
  name: CommandName,
  values: Values,
  problems: string[]
): void => {
  if (
    (name === 'add' ||
      name === 'remove' ||
      name === 'unfence' ||
      name === 'label') &&
    values.id === undefined
  ) {
    problems.push(`${name} needs --id ID`);
  }
  const mode = values.mode ?? 'watch';
  if (name === 'add' && mode !== 'watch' && mode !== 'economy') {
    problems.push('--mode must be watch or economy');
  }
};

/** Returns `check`'s timeout in seconds, recording an invalid one. */
const checkTimeoutOf = (
  name: CommandName,
  values: Values,
  problems: string[]
): number => {
  const seconds = Number(values.timeout ?? DEFAULT_CHECK_TIMEOUT_SECONDS);
  const valid =
    Number.isFinite(seconds) &&
    seconds > 0 &&
    seconds <= MAX_CHECK_TIMEOUT_SECONDS;
  if ((name === 'check' || name === 'add') && !valid) {
    problems.push(
      `--timeout must be a number of seconds in (0, ${MAX_CHECK_TIMEOUT_SECONDS}]`
    );
  }
  return seconds;
};

/** Records a `--daemonset` that is not namespace/name. */
const checkDaemonSet = (values: Values, problems: string[]): void => {
  const daemonSet = values.daemonset;
  if (
    daemonSet !== undefined &&
    !/^[a-z0-9.-]+\/[a-z0-9.-]+$/.test(daemonSet)
  ) {
    problems.push(
      `--daemonset must be namespace/name, not ${JSON.stringify(daemonSet)}`
    );
  }
};

/** Returns `add`'s options as given. */
const addOptionsOf = (values: Values): AddOptions => ({
  id: values.id ?? '',
  server: values.server,
  caFile: values['ca-file'],
  caData: values['ca-data'],
  eksCluster: values['eks-cluster'],
  eksRegion: values['eks-region'],
  roleArn: values['role-arn'],
  secretArn: values['secret-arn'],
  kubeconfig: values.kubeconfig,
  context: values.context,
  mode: (values.mode ?? 'watch') as AddOptions['mode'],
  ...(values.ownership ? { ownership: values.ownership } : {}),
  replace: values.replace ?? false,
  skipCheck: values['skip-check'] ?? false,
  ...(values['api-qps'] ? { apiQps: values['api-qps'] } : {}),
  ...(values['api-burst'] ? { apiBurst: values['api-burst'] } : {}),
  ...(values.label ? { labels: values.label } : {}),
});

/**
 * Returns the command `argv` (the arguments after `--`) asks for; throws one
 * CliUsageError listing every problem. `env` supplies `TABLE_NAME` and
 * `AWS_REGION` when `--table` (or `--stage`) and `--region` are not given.
 *
 * @example
 * const command = parseClustersArgs(process.argv.slice(2), process.env);
 */
export const parseClustersArgs = (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>
): ClustersCommand => {
  const { values, positionals } = parseOrThrow(argv);
  const [first, ...extra] = positionals;
  // `help add`, `add --help`, `--help`.
  const help = helpAskedFor(positionals, values.help);
  if (help !== undefined) {
    return help.topic === undefined
      ? { name: 'help' }
      : { name: 'help', topic: commandNameOf(help.topic) };
  }
  const name = commandNameOf(first);
  const problems: string[] = [];
  if (name === 'label' && extra.length === 0) {
    problems.push('label needs at least one key=value or key-');
  }
  if (name !== 'label' && extra.length > 0) {
    problems.push(`unexpected argument(s): ${extra.join(' ')}`);
  }
  checkOptionsApply(
    name,
    values,
    [...COMMON_OPTIONS, ...COMMAND_OPTIONS[name]],
    problems
  );
  const output = outputOf(name, values, problems);
  const target = tableLocatorOf(values, env, problems);
  if (name === 'add') checkKubeconfigTarget(values, problems);
  checkIdAndMode(name, values, problems);
  const timeoutSeconds = checkTimeoutOf(name, values, problems);
  checkDaemonSet(values, problems);
  if (problems.length > 0) throw new CliUsageError(problems);
  const common = { target, output };
  switch (name) {
    case 'list':
      return { name, ...common, noHeaders: values['no-headers'] ?? false };
    case 'remove':
      return { name, ...common, id: values.id ?? '' };
    case 'label':
      return {
        name,
        ...common,
        id: values.id ?? '',
        changes: extra,
        overwrite: values.overwrite ?? false,
      };
    case 'unfence':
      return {
        name,
        ...common,
        id: values.id ?? '',
        ...(values.daemonset ? { daemonSet: values.daemonset } : {}),
      };
    case 'check':
      return {
        name,
        ...common,
        id: values.id,
        timeoutMs: timeoutSeconds * 1000,
      };
    case 'add':
      return {
        name,
        ...common,
        add: addOptionsOf(values),
        timeoutMs: timeoutSeconds * 1000,
      };
  }
};
