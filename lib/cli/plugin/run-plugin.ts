/**
 * `kubectl dsr`: kubectl's rollout commands for the own kind, which kubectl
 * itself cannot roll (its rollout verbs know only built-in kinds). Returns
 * what to print and the exit code (0 done, 1 failed) instead of printing,
 * so tests call it directly against a real API server.
 */
import { ApiErrorReason, isApiError } from '../../errors.js';
import type { DaemonSetMigrationApi } from '../../ports/index.js';
import {
  ADVANCED_DAEMON_SET,
  KRUISE_DAEMON_SET,
  NATIVE_DAEMON_SET,
} from '../../reconcile/k8s/daemon-set-kind.js';
import { CliUsageError } from '../cli-usage-error.js';
import { describeError } from '../describe-error.js';
import { completionScript } from './completion.js';
import { BARE_DRY_RUN_WARNING } from './dry-run.js';
import { get } from './get-command.js';
import { runInspectCommand } from './inspect-command.js';
import { kubectlApiErrorLine } from './kubectl-error.js';
import { migrateDaemonSet } from './migrate-daemon-set.js';
import { runOnDeleteRolloutCommand } from './on-delete-rollout.js';
import { type PluginCommand, parsePluginArgs } from './parse-plugin-args.js';
import type { PluginDeps } from './plugin-deps.js';
import { helpPage } from './plugin-help.js';
import { RESOURCE, runRolloutCommand } from './rollout-commands.js';
import { setImage } from './set-image.js';

/** What one run prints, and how it exits. */
export interface PluginOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Default wait for the target's controller to adopt a migrated object's pods. */
const MIGRATE_TIMEOUT_MS = 60_000;

const migrate = async (
  c: Extract<PluginCommand, { verb: 'migrate' }>,
  api: DaemonSetMigrationApi,
  ns: string,
  deps: PluginDeps
): Promise<string> => {
  const from = {
    'apps/v1': NATIVE_DAEMON_SET,
    'apps.dsr.dev/v1beta1': ADVANCED_DAEMON_SET,
    'apps.kruise.io/v1beta1': KRUISE_DAEMON_SET,
  }[c.from];
  const report = await migrateDaemonSet(api, from, ns, c.name, {
    dryRun: c.dryRun,
    timeoutMs: c.timeoutMs ?? MIGRATE_TIMEOUT_MS,
    now: deps.now,
    sleep: deps.sleep,
    save:
      deps.save ??
      (() => {
        throw new Error('no place to save the copies; nothing was changed');
      }),
  });
  return `${report.lines.join('\n')}\n`;
};

/** Returns what the verbs that need no cluster print (help, version, completion). */
const localOutput = (
  c: Extract<PluginCommand, { verb: 'help' | 'version' | 'completion' }>,
  deps: PluginDeps
): PluginOutput => {
  if (c.verb === 'version') {
    return {
      exitCode: 0,
      stdout: `dsr version ${deps.version ?? 'unknown'}\n`,
      stderr: '',
    };
  }
  if (c.verb === 'completion') {
    return { exitCode: 0, stdout: completionScript(c.shell), stderr: '' };
  }
  const page = helpPage(c.topic);
  if (page === undefined) {
    return {
      exitCode: 1,
      stdout: '',
      stderr: `error: unknown command "${c.topic.join(' ')}" for "kubectl dsr"\nSee 'kubectl dsr --help' for usage.\n`,
    };
  }
  return c.stream === 'stdout'
    ? { exitCode: 0, stdout: page, stderr: '' }
    : { exitCode: 1, stdout: '', stderr: page };
};

/**
 * Runs one `kubectl dsr` invocation; never throws. Errors print as kubectl
 * prints them (`error: …`, exit 1; `Error from server (NotFound): …`).
 *
 * @example
 * const out = await runPlugin(process.argv.slice(2), deps);
 */
export const runPlugin = async (
  argv: readonly string[],
  deps: PluginDeps
): Promise<PluginOutput> => {
  let command: PluginCommand;
  try {
    command = parsePluginArgs(argv);
  } catch (e) {
    const problems =
      e instanceof CliUsageError ? e.problems : [describeError(e)];
    return {
      exitCode: 1,
      stdout: '',
      stderr: `${problems.map((p) => `error: ${p}`).join('\n')}\nSee 'kubectl dsr --help' for usage.\n`,
    };
  }
  if (
    command.verb === 'help' ||
    command.verb === 'version' ||
    command.verb === 'completion'
  ) {
    return localOutput(command, deps);
  }
  let opened: ReturnType<PluginDeps['open']> | undefined;
  try {
    opened = deps.open(command);
    const ns = command.namespace ?? opened.namespace;
    if (command.verb === 'plan' || command.verb === 'explain') {
      const api = opened.api;
      return await runInspectCommand(
        command,
        (kind) => api.reader(kind),
        ns,
        deps
      );
    }
    const warning = argv.includes('--dry-run') ? BARE_DRY_RUN_WARNING : '';
    if (command.verb === 'get') {
      const out = await get(command, opened.api, ns, deps);
      if (deps.signal?.aborted) return { exitCode: 1, stdout: '', stderr: '' };
      return { exitCode: 0, ...out };
    }
    const stdout =
      command.verb === 'migrate'
        ? await migrate(command, opened.api, ns, deps)
        : command.verb === 'image'
          ? await setImage(command, opened.api, ns)
          : command.native
            ? await runOnDeleteRolloutCommand(command, opened.api, ns, deps)
            : await runRolloutCommand(command, opened.api, ns, deps);
    return { exitCode: 0, stdout, stderr: warning };
  } catch (e) {
    // kubectl's interrupted watch exits 1 and says nothing.
    if (deps.signal?.aborted) return { exitCode: 1, stdout: '', stderr: '' };
    const notFound = isApiError(e, ApiErrorReason.NotFound);
    const name = 'name' in command ? command.name : '';
    const line = kubectlApiErrorLine(e, opened?.server);
    return {
      exitCode: 1,
      stdout: '',
      stderr: notFound
        ? `Error from server (NotFound): ${'native' in command && command.native ? 'daemonsets.apps' : RESOURCE} "${name}" not found\n`
        : `${line ?? `error: ${describeError(e)}`}\n`,
    };
  } finally {
    opened?.api.close();
  }
};
