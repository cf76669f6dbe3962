/**
 * The options of `dsr fleet`, as node:util `parseArgs` takes them, which
 * verb takes which, and the positional arguments each verb needs.
 */
import { TABLE_LOCATOR_OPTIONS } from '../parse-table-locator.js';
import type { FleetVerb } from './fleet-command.js';

/** Every option of every verb. */
export const FLEET_OPTIONS = {
  ...TABLE_LOCATOR_OPTIONS,
  output: { type: 'string', short: 'o' },
  help: { type: 'boolean', short: 'h' },
  filename: { type: 'string', short: 'f' },
  'dry-run': { type: 'boolean' },
  force: { type: 'boolean' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
} as const;

export type FleetOptionName = keyof typeof FLEET_OPTIONS;

/** The options every verb takes. */
export const FLEET_COMMON_OPTIONS: readonly FleetOptionName[] = [
  'table',
  'stage',
  'region',
  'endpoint',
  'output',
  'help',
];

/** The options of each verb beyond the common ones. */
export const FLEET_VERB_OPTIONS: Record<FleetVerb, readonly FleetOptionName[]> =
  {
    apply: ['filename', 'dry-run'],
    list: [],
    status: [],
    history: [],
    pause: [],
    resume: [],
    abort: [],
    approve: [],
    rollback: ['kubeconfig', 'context', 'dry-run'],
    delete: ['force'],
  };

/** The positional arguments of each verb, as the usage names them. */
export const FLEET_VERB_ARGUMENTS: Record<FleetVerb, readonly string[]> = {
  apply: [],
  list: [],
  status: ['NAME'],
  history: ['NAME'],
  pause: ['NAME'],
  resume: ['NAME'],
  abort: ['NAME'],
  approve: ['NAME', 'WAVE'],
  rollback: ['NAME', 'CLUSTER'],
  delete: ['NAME'],
};

/** Whether `name` is a verb's name. */
export const isFleetVerb = (name: string | undefined): name is FleetVerb =>
  name !== undefined && Object.hasOwn(FLEET_VERB_OPTIONS, name);
