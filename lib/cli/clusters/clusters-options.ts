/**
 * The options of `dsr clusters`, as node:util `parseArgs` takes them,
 * and which command takes which.
 */
import { TABLE_LOCATOR_OPTIONS } from '../parse-table-locator.js';
import type { CommandName } from './clusters-command.js';

/** Every option of every command. */
export const OPTIONS = {
  ...TABLE_LOCATOR_OPTIONS,
  output: { type: 'string', short: 'o' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  'no-headers': { type: 'boolean' },
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
  label: { type: 'string', multiple: true },
  overwrite: { type: 'boolean' },
} as const;

export type OptionName = keyof typeof OPTIONS;

export const COMMON_OPTIONS: readonly OptionName[] = [
  'table',
  'stage',
  'region',
  'endpoint',
  'output',
  'json',
  'help',
];
export const COMMAND_OPTIONS: Record<CommandName, readonly OptionName[]> = {
  list: ['no-headers'],
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
    'label',
  ],
  check: ['id', 'timeout'],
  remove: ['id'],
  unfence: ['id', 'daemonset'],
  label: ['id', 'overwrite'],
};

/** Whether `name` is a command's name. */
export const isCommand = (name: string | undefined): name is CommandName =>
  name !== undefined && Object.hasOwn(COMMAND_OPTIONS, name);
