/**
 * What a `clusters` command line means once parsed: the commands, their
 * options, where the registry is and how to print the outcome.
 */
import type { TableLocator } from '../parse-table-locator.js';
import type { OutputFormat } from '../render-output.js';

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
  /**
   * What the reconciler owns there (as given): `apps/v1` DaemonSets, or the
   * own kind `apps.dsr.dev/v1beta1` (managed clusters).
   */
  ownership?: string;
  /** Overwrite a record that is already registered under the id. */
  replace: boolean;
  /** Register without checking the cluster first (as `check` would). */
  skipCheck: boolean;
  /** Requests per second and burst shared by all reconcilers (as given). */
  apiQps?: string;
  apiBurst?: string;
  /** Registration labels, `key=value` each (as given). */
  labels?: readonly string[];
}

/** The commands, in the order the usage lists them. */
export const COMMAND_NAMES = [
  'list',
  'add',
  'check',
  'remove',
  'unfence',
  'label',
] as const;

/** The name of a command (not `help`). */
export type CommandName = (typeof COMMAND_NAMES)[number];

/** What every command (not `help`) carries. */
interface Common {
  target: TableLocator;
  output: OutputFormat;
}

/** One parsed invocation of the CLI. */
export type ClustersCommand =
  /** The overview, or one command's usage (`add --help`, `help add`). */
  | { name: 'help'; topic?: CommandName }
  | (Common & {
      name: 'list';
      /** Table output without its header line. */
      noHeaders: boolean;
    })
  | (Common & {
      name: 'add';
      add: AddOptions;
      /** How long the check before writing may wait for GET /version. */
      timeoutMs: number;
    })
  | (Common & {
      name: 'check';
      /** One cluster, or every registered one when undefined. */
      id: string | undefined;
      /** How long GET /version may take before the server counts as unreachable. */
      timeoutMs: number;
    })
  | (Common & { name: 'remove'; id: string })
  | (Common & {
      name: 'unfence';
      id: string;
      /** `namespace/name`: clear that DaemonSet's own fence instead. */
      daemonSet?: string;
    })
  | (Common & {
      name: 'label';
      id: string;
      /** `key=value` sets, `key-` removes, as `kubectl label`. */
      changes: readonly string[];
      /** Lets `key=value` replace a key that has another value. */
      overwrite: boolean;
    });

/** A command that works on the registry (every one but `help`). */
export type RegistryCommand = Exclude<ClustersCommand, { name: 'help' }>;

/** Seconds GET /version may take by default: a reachable server answers in far less. */
export const DEFAULT_CHECK_TIMEOUT_SECONDS = 5;
/** Longer than a Lambda's own connect budget is never useful. */
export const MAX_CHECK_TIMEOUT_SECONDS = 60;
