/**
 * Every flag of `kubectl dsr`, as kubectl (pflag) defines its own: the
 * verb table (plugin-verbs.ts) says which verb takes which.
 */

/** One flag, as kubectl (pflag) defines it. */
export interface FlagSpec {
  /** `bool` flags take `--x`, `-x` and `--x=true|false`, as pflag's. */
  type: 'string' | 'bool';
  short?: string;
  /** What help shows after `=`: the default, or the value's name. */
  shown: string;
  help: string;
}

/** Every flag of the plugin. */
export const FLAGS = {
  namespace: {
    type: 'string',
    short: 'n',
    shown: "''",
    help: "The namespace (default: the context's).",
  },
  kubeconfig: {
    type: 'string',
    shown: "''",
    help: 'The kubeconfig file (default: $KUBECONFIG, merged as kubectl merges it, or ~/.kube/config).',
  },
  context: {
    type: 'string',
    shown: "''",
    help: 'The kubeconfig context to use.',
  },
  help: {
    type: 'bool',
    short: 'h',
    shown: 'false',
    help: 'Help for the verb.',
  },
  output: {
    type: 'string',
    short: 'o',
    shown: "''",
    help: 'Output format: json, yaml, wide or name.',
  },
  selector: {
    type: 'string',
    short: 'l',
    shown: "''",
    help: 'Label selector to filter on (e.g. -l app=agent,tier!=web).',
  },
  watch: {
    type: 'bool',
    short: 'w',
    shown: 'false',
    help: 'After listing, watch for changes and print each one, until interrupted.',
  },
  'all-namespaces': {
    type: 'bool',
    short: 'A',
    shown: 'false',
    help: 'List the objects of every namespace.',
  },
  'dry-run': {
    type: 'string',
    shown: 'none',
    help: 'client: print what would be sent and send nothing; server: send each write with dryRun=All.',
  },
  timeout: {
    type: 'string',
    shown: '0s',
    help: 'How long to wait before giving up (e.g. 90s, 5m); 0 waits forever.',
  },
  revision: {
    type: 'string',
    shown: '0',
    help: 'Show the pod template of this revision.',
  },
  'to-revision': {
    type: 'string',
    shown: '0',
    help: 'The revision to roll back to; 0 means the previous one.',
  },
  ds: {
    type: 'string',
    shown: "''",
    help: 'The DaemonSet: ds/NAME, advds/NAME, NAMESPACE/NAME or NAME.',
  },
  cluster: {
    type: 'string',
    shown: "''",
    help: "The id the cluster is registered under (reads the reconcilers' state).",
  },
  table: { type: 'string', shown: "''", help: 'The state table by name.' },
  stage: {
    type: 'string',
    shown: "''",
    help: 'The deployed stage whose state table to read.',
  },
  region: { type: 'string', shown: "''", help: 'The AWS region of the stage.' },
  endpoint: {
    type: 'string',
    shown: "''",
    help: 'The DynamoDB endpoint (with --table).',
  },
} as const satisfies Record<string, FlagSpec>;

/** A flag's long name. */
export type FlagName = keyof typeof FLAGS;

/** The flags every verb takes (kubectl's global ones). */
export const GLOBAL_FLAGS: readonly FlagName[] = [
  'namespace',
  'kubeconfig',
  'context',
  'help',
];

/** The flags that only plan and explain take. */
export const STATE_FLAGS: readonly FlagName[] = [
  'cluster',
  'table',
  'stage',
  'region',
  'endpoint',
];
