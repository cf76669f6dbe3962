/**
 * The command line of `npm run clusters -- <list|add|check|remove|unfence>`: parsed
 * with node:util `parseArgs` (strict), then checked per command, so an option
 * that does not apply is an error instead of being silently ignored.
 */
import { parseArgs } from 'node:util';
import { CliUsageError } from './cli-usage-error.js';
import {
  type AddOptions,
  type ClustersCommand,
  DEFAULT_CHECK_TIMEOUT_SECONDS,
  MAX_CHECK_TIMEOUT_SECONDS,
  type TableTarget,
} from './clusters-command.js';

const OPTIONS = {
  table: { type: 'string' },
  region: { type: 'string' },
  endpoint: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  id: { type: 'string' },
  server: { type: 'string' },
  'ca-file': { type: 'string' },
  'ca-data': { type: 'string' },
  'eks-cluster': { type: 'string' },
  'eks-region': { type: 'string' },
  'role-arn': { type: 'string' },
  'secret-arn': { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  mode: { type: 'string' },
  ownership: { type: 'string' },
  replace: { type: 'boolean' },
  'skip-check': { type: 'boolean' },
  'api-qps': { type: 'string' },
  'api-burst': { type: 'string' },
  timeout: { type: 'string' },
  daemonset: { type: 'string' },
} as const;

type OptionName = keyof typeof OPTIONS;
type CommandName = Exclude<ClustersCommand['name'], 'help'>;

const COMMON: readonly OptionName[] = [
  'table',
  'region',
  'endpoint',
  'json',
  'help',
];
const COMMAND_OPTIONS: Record<CommandName, readonly OptionName[]> = {
  list: [],
  add: [
    'id',
    'server',
    'ca-file',
    'ca-data',
    'eks-cluster',
    'eks-region',
    'role-arn',
    'secret-arn',
    'kubeconfig',
    'context',
    'mode',
    'ownership',
    'replace',
    'skip-check',
    'timeout',
    'api-qps',
    'api-burst',
  ],
  check: ['id', 'timeout'],
  remove: ['id'],
  unfence: ['id', 'daemonset'],
};

/** Returns options and positionals; unknown options throw. */
const parseStrict = (argv: readonly string[]) =>
  parseArgs({
    args: [...argv],
    options: OPTIONS,
    allowPositionals: true,
    strict: true,
  });

const isCommand = (name: string | undefined): name is CommandName =>
  name !== undefined && Object.hasOwn(COMMAND_OPTIONS, name);

/** Returns the DynamoDB endpoint's problem, or undefined. */
const endpointProblem = (url: string): string | undefined => {
  try {
    const { protocol } = new URL(url);
    if (protocol === 'http:' || protocol === 'https:') return undefined;
  } catch {
    // Reported below.
  }
  return `--endpoint must be an http(s) URL, not ${JSON.stringify(url)}`;
};

type Values = ReturnType<typeof parseStrict>['values'];

/** Returns the parsed command line; a parse error becomes a CliUsageError. */
const parseOrThrow = (argv: readonly string[]) => {
  try {
    return parseStrict(argv);
  } catch (cause) {
    // parseArgs names the offending option; no argument is a secret.
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new CliUsageError([message], { cause });
  }
};

/** Returns the command's name; a missing or unknown one is a usage error. */
const commandNameOf = (name: string | undefined): CommandName => {
  if (isCommand(name)) return name;
  throw new CliUsageError([
    name === undefined
      ? 'give a command: list, add, check, remove or unfence'
      : `unknown command ${JSON.stringify(name)}: use list, add, check, remove or unfence`,
  ]);
};

/** Returns the table the command works on, recording what is wrong. */
const tableTargetOf = (
  values: Values,
  env: Readonly<Record<string, string | undefined>>,
  problems: string[]
): TableTarget => {
  const tableName = values.table ?? env.TABLE_NAME;
  if (!tableName) problems.push('--table NAME (or TABLE_NAME) is required');
  const region = values.region ?? env.AWS_REGION;
  if (values.endpoint !== undefined) {
    const problem = endpointProblem(values.endpoint);
    if (problem) problems.push(problem);
  }
  return {
    tableName: tableName ?? '',
    ...(region ? { region } : {}),
    ...(values.endpoint ? { endpoint: values.endpoint } : {}),
  };
};

/** Records the options that do not apply to the command. */
const checkOptions = (
  name: CommandName,
  values: Values,
  problems: string[]
): void => {
  const allowed = [...COMMON, ...COMMAND_OPTIONS[name]];
  for (const option of Object.keys(values) as OptionName[]) {
    if (!allowed.includes(option)) {
      problems.push(`--${option} does not apply to ${name}`);
    }
  }
};

/** Records a missing id and an unknown bridge mode. */
const checkIdAndMode = (
  name: CommandName,
  values: Values,
  problems: string[]
): void => {
  if (
    (name === 'add' || name === 'remove' || name === 'unfence') &&
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
});

/**
 * Returns the command `argv` (the arguments after `--`) asks for; throws one
 * CliUsageError listing every problem. `env` supplies `TABLE_NAME` and
 * `AWS_REGION` when `--table` and `--region` are not given.
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
  if (values.help || first === 'help') return { name: 'help' };
  const name = commandNameOf(first);
  const problems: string[] = [];
  if (extra.length > 0) {
    problems.push(`unexpected argument(s): ${extra.join(' ')}`);
  }
  checkOptions(name, values, problems);
  const table = tableTargetOf(values, env, problems);
  checkIdAndMode(name, values, problems);
  const timeoutSeconds = checkTimeoutOf(name, values, problems);
  if (problems.length > 0) throw new CliUsageError(problems);
  const json = values.json ?? false;
  switch (name) {
    case 'list':
      return { name, table, json };
    case 'remove':
      return { name, table, json, id: values.id ?? '' };
    case 'unfence': {
      const daemonSet = values.daemonset;
      if (
        daemonSet !== undefined &&
        !/^[a-z0-9.-]+\/[a-z0-9.-]+$/.test(daemonSet)
      ) {
        throw new CliUsageError([
          `--daemonset must be namespace/name, not ${JSON.stringify(daemonSet)}`,
        ]);
      }
      return {
        name,
        table,
        json,
        id: values.id ?? '',
        ...(daemonSet ? { daemonSet } : {}),
      };
    }
    case 'check':
      return {
        name,
        table,
        json,
        id: values.id,
        timeoutMs: timeoutSeconds * 1000,
      };
    case 'add':
      return {
        name,
        table,
        json,
        add: addOptionsOf(values),
        timeoutMs: timeoutSeconds * 1000,
      };
  }
};
