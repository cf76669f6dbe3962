/**
 * kubectl's `--dry-run` for the plugin's verbs that write
 * (staging/src/k8s.io/kubectl/pkg/cmd/util/helpers.go `GetDryRunStrategy`):
 * `none` writes, `client` prints what it would send and sends nothing,
 * `server` sends each write with `dryRun=All`. A bare `--dry-run` means
 * `client`, with kubectl's deprecation warning.
 */
import type { WriteOptions } from '../../ports/index.js';
import { CliUsageError } from '../cli-usage-error.js';

/** The dry-run strategy of one invocation. */
export type DryRun = 'none' | 'client' | 'server';

/** What a bare `--dry-run` is rewritten to before parsing (kubectl's NoOptDefVal). */
export const BARE_DRY_RUN = '--dry-run=unchanged';

/** kubectl's warning for a bare `--dry-run`. */
export const BARE_DRY_RUN_WARNING =
  'warning: --dry-run is deprecated and can be replaced with --dry-run=client.\n';

/** Returns the strategy `--dry-run=VALUE` names; throws CliUsageError when wrong. */
export const parseDryRun = (value: string | undefined): DryRun => {
  if (value === undefined || value === 'none') return 'none';
  if (value === 'client' || value === 'unchanged') return 'client';
  if (value === 'server') return 'server';
  throw new CliUsageError([
    `invalid dry-run value (${value}). Must be "none", "server", or "client"`,
  ]);
};

/** Returns what kubectl appends to a message under the strategy. */
export const dryRunSuffix = (d: DryRun): string =>
  d === 'client' ? ' (dry run)' : d === 'server' ? ' (server dry run)' : '';

/** The resource kubectl names objects of the own kind by. */
export const RESOURCE = 'advanceddaemonset.apps.dsr.dev';

/**
 * Sends one write as `c.dryRun` says and returns kubectl's message: under
 * `client` nothing is sent and the patch follows the message; under
 * `server` the write carries `dryRun=All`.
 */
export const sendWrite = async (
  c: { name: string; dryRun: DryRun },
  done: string,
  patch: unknown,
  write: (o: WriteOptions) => Promise<unknown>,
  resource = RESOURCE
): Promise<string> => {
  if (c.dryRun !== 'client') await write({ dryRun: c.dryRun === 'server' });
  const sent =
    c.dryRun === 'client' ? `${JSON.stringify(patch, null, 2)}\n` : '';
  return `${resource}/${c.name} ${done}${dryRunSuffix(c.dryRun)}\n${sent}`;
};
