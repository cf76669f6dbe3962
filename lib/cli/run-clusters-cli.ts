/**
 * The cluster registry CLI behind `npm run clusters`: parses the command
 * line, runs list / add / check / unfence / remove (lib/cli/clusters-
 * commands.ts), and returns what to print and the exit code (0 ok, 1
 * failed, 2 bad usage) instead of printing, so tests call it directly.
 */
import { CliUsageError } from './cli-usage-error.js';
import {
  CLUSTERS_USAGE,
  type ClustersCommand,
  type TableTarget,
} from './clusters-command.js';
import {
  type ClustersCliDeps,
  type Outcome,
  runClustersCommand,
} from './clusters-commands.js';
import { describeError } from './describe-error.js';
import { parseClustersArgs } from './parse-clusters-args.js';

/** What one run prints, and how it exits. */
export interface CliOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** The exit code of a run with a bad command line. */
export const USAGE_EXIT_CODE = 2;

/** Returns the lines of an error: every problem, every aggregated error. */
const errorLines = (e: unknown): string[] => {
  if (e instanceof CliUsageError) return e.problems.map((p) => `error: ${p}`);
  if (e instanceof AggregateError) {
    return [
      `error: ${e.message}`,
      ...e.errors.map((x) => `  ${describeError(x)}`),
    ];
  }
  return [`error: ${describeError(e)}`];
};

const render = (outcome: Outcome, json: boolean): string =>
  json
    ? `${JSON.stringify(outcome.json, null, 2)}\n`
    : `${outcome.lines.join('\n')}\n`;

/**
 * Runs one invocation: `argv` are the arguments after `npm run clusters --`,
 * `env` supplies TABLE_NAME / AWS_REGION, `depsFor` builds the registry and
 * connector for the chosen table. Never throws: failures become an exit code
 * and lines on stderr (a failing check is a report on stdout, exit code 1).
 *
 * @example
 * const out = await runClustersCli(['list'], process.env, depsFor);
 * process.stdout.write(out.stdout);
 * process.exitCode = out.exitCode;
 */
export const runClustersCli = async (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  depsFor: (table: TableTarget) => ClustersCliDeps
): Promise<CliOutput> => {
  let command: ClustersCommand;
  try {
    command = parseClustersArgs(argv, env);
  } catch (e) {
    return {
      exitCode: USAGE_EXIT_CODE,
      stdout: '',
      stderr: `${[...errorLines(e), '', CLUSTERS_USAGE].join('\n')}`,
    };
  }
  if (command.name === 'help') {
    return { exitCode: 0, stdout: CLUSTERS_USAGE, stderr: '' };
  }
  try {
    const deps = depsFor(command.table);
    const outcome = await runClustersCommand(command, deps);
    const text = render(outcome, command.json);
    return {
      exitCode: outcome.exitCode,
      stdout: outcome.error ? '' : text,
      stderr: outcome.error ? text : '',
    };
  } catch (e) {
    return {
      exitCode: e instanceof CliUsageError ? USAGE_EXIT_CODE : 1,
      stdout: '',
      stderr: `${errorLines(e).join('\n')}\n`,
    };
  }
};
