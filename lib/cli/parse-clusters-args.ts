/**
 * The command line of `npm run clusters -- <list|add|check|remove|unfence>`: parsed
 * with node:util `parseArgs` (strict), then checked per command, so an option
 * that does not apply is an error instead of being silently ignored.
 */
import { parseArgs } from 'node:util';
import { CliUsageError } from './cli-usage-error.js';

/** Where the registry lives: the state table, and how to reach DynamoDB. */
export interface TableTarget {
  tableName: string;
  /** `--region`, else `AWS_REGION`; undefined leaves it to the SDK. */
  region?: string;
  /** `--endpoint`: a DynamoDB endpoint such as DynamoDB Local. */
  endpoint?: string;
}

/** The options of `add`, as given (validated by clusterRecordFromOptions). */
export interface AddOptions {
  id: string;
  server?: string;
  caFile?: string;
  caData?: string;
  eksCluster?: string;
  eksRegion?: string;
  roleArn?: string;
  secretArn?: string;
  kubeconfig?: string;
  context?: string;
  mode: 'watch' | 'economy';
  /** Overwrite a record that is already registered under the id. */
  replace: boolean;
  /** Requests per second and burst shared by all reconcilers (as given). */
  apiQps?: string;
  apiBurst?: string;
}

/** One parsed invocation of the CLI. */
export type ClustersCommand =
  | { name: 'help' }
  | { name: 'list'; table: TableTarget; json: boolean }
  | { name: 'add'; table: TableTarget; json: boolean; add: AddOptions }
  | {
      name: 'check';
      table: TableTarget;
      json: boolean;
      /** One cluster, or every registered one when undefined. */
      id: string | undefined;
      /** How long GET /version may take before the server counts as unreachable. */
      timeoutMs: number;
    }
  | { name: 'remove'; table: TableTarget; json: boolean; id: string }
  | { name: 'unfence'; table: TableTarget; json: boolean; id: string };

/** Seconds GET /version may take by default: a reachable server answers in far less. */
export const DEFAULT_CHECK_TIMEOUT_SECONDS = 5;
/** Longer than a Lambda's own connect budget is never useful. */
const MAX_CHECK_TIMEOUT_SECONDS = 60;

/** The text `--help` prints. */
export const CLUSTERS_USAGE = `usage: npm run clusters -- <command> [options]

commands:
  list                       the registered clusters (id, server, auth, mode)
  add    --id ID AUTH [--mode watch|economy] [--replace]
         [--api-qps N --api-burst N]   the cluster's shared API budget
                                       (default 50 and 100)
         AUTH is one of
           --eks-cluster NAME [--eks-region R] [--role-arn ARN] --server URL CA
           --secret-arn ARN --server URL CA
           --kubeconfig PATH [--context NAME]      (local runs and tests only)
         CA is --ca-file PEM or --ca-data BASE64
  check  [--id ID] [--timeout SECONDS]
                             reachability, version, authentication and RBAC
                             of one cluster, or of all; exit code 0 only if
                             everything holds
  remove --id ID             deletes the cluster's record
  unfence --id ID            lets the reconciler act again on a cluster it
                             stopped on because another DaemonSet controller
                             was active there (turn that one off first)

options of every command:
  --table NAME               the state table (default: $TABLE_NAME)
  --region R                 AWS region of the table (default: $AWS_REGION)
  --endpoint URL             DynamoDB endpoint (e.g. DynamoDB Local)
  --json                     machine-readable output
  -h, --help                 this text
`;

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
  replace: { type: 'boolean' },
  'api-qps': { type: 'string' },
  'api-burst': { type: 'string' },
  timeout: { type: 'string' },
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
    'replace',
    'api-qps',
    'api-burst',
  ],
  check: ['id', 'timeout'],
  remove: ['id'],
  unfence: ['id'],
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
  let parsed: ReturnType<typeof parseStrict>;
  try {
    parsed = parseStrict(argv);
  } catch (cause) {
    // parseArgs names the offending option; no argument is a secret.
    const message = cause instanceof Error ? cause.message : String(cause);
    throw new CliUsageError([message], { cause });
  }
  const { values, positionals } = parsed;
  const [name, ...extra] = positionals;
  if (values.help || name === 'help') return { name: 'help' };
  if (!isCommand(name)) {
    throw new CliUsageError([
      name === undefined
        ? 'give a command: list, add, check, remove or unfence'
        : `unknown command ${JSON.stringify(name)}: use list, add, check, remove or unfence`,
    ]);
  }
  const problems: string[] = [];
  if (extra.length > 0) {
    problems.push(`unexpected argument(s): ${extra.join(' ')}`);
  }
  const allowed = [...COMMON, ...COMMAND_OPTIONS[name]];
  for (const option of Object.keys(values) as OptionName[]) {
    if (!allowed.includes(option)) {
      problems.push(`--${option} does not apply to ${name}`);
    }
  }
  const tableName = values.table ?? env.TABLE_NAME;
  if (!tableName) problems.push('--table NAME (or TABLE_NAME) is required');
  const region = values.region ?? env.AWS_REGION;
  if (values.endpoint !== undefined) {
    const problem = endpointProblem(values.endpoint);
    if (problem) problems.push(problem);
  }
  const table: TableTarget = {
    tableName: tableName ?? '',
    ...(region ? { region } : {}),
    ...(values.endpoint ? { endpoint: values.endpoint } : {}),
  };
  const json = values.json ?? false;
  const id = values.id;
  if (
    (name === 'add' || name === 'remove' || name === 'unfence') &&
    id === undefined
  ) {
    problems.push(`${name} needs --id ID`);
  }
  const mode = values.mode ?? 'watch';
  if (name === 'add' && mode !== 'watch' && mode !== 'economy') {
    problems.push('--mode must be watch or economy');
  }
  const timeoutSeconds = Number(
    values.timeout ?? DEFAULT_CHECK_TIMEOUT_SECONDS
  );
  const timeoutValid =
    Number.isFinite(timeoutSeconds) &&
    timeoutSeconds > 0 &&
    timeoutSeconds <= MAX_CHECK_TIMEOUT_SECONDS;
  if (name === 'check' && !timeoutValid) {
    problems.push(
      `--timeout must be a number of seconds in (0, ${MAX_CHECK_TIMEOUT_SECONDS}]`
    );
  }
  if (problems.length > 0) throw new CliUsageError(problems);
  switch (name) {
    case 'list':
      return { name, table, json };
    case 'remove':
    case 'unfence':
      return { name, table, json, id: id ?? '' };
    case 'check':
      return { name, table, json, id, timeoutMs: timeoutSeconds * 1000 };
    case 'add':
      return {
        name,
        table,
        json,
        add: {
          id: id ?? '',
          server: values.server,
          caFile: values['ca-file'],
          caData: values['ca-data'],
          eksCluster: values['eks-cluster'],
          eksRegion: values['eks-region'],
          roleArn: values['role-arn'],
          secretArn: values['secret-arn'],
          kubeconfig: values.kubeconfig,
          context: values.context,
          mode: mode as AddOptions['mode'],
          replace: values.replace ?? false,
          ...(values['api-qps'] ? { apiQps: values['api-qps'] } : {}),
          ...(values['api-burst'] ? { apiBurst: values['api-burst'] } : {}),
        },
      };
  }
};
