/**
 * The cluster registry CLI behind `dsr clusters`: parses the command
 * line, finds the table (`--stage`: from the stack's outputs), runs list /
 * add / check / unfence / remove (lib/cli/clusters/clusters-commands.ts), and
 * returns what to print and the exit code (0 ok, 1 failed, 2 bad usage)
 * instead of printing, so tests call it directly.
 */
import { CliUsageError } from '../cli-usage-error.js';
import { invocationHints, refusedCommandLine } from '../parse-args-problems.js';
import type { TableTarget } from '../parse-table-locator.js';
import {
  type CliOutput,
  failedWith,
  printOutcome,
  usageFailure,
} from '../render-output.js';
import { resolveTable, type StackOutputsFor } from '../stack-table.js';
import {
  type ClustersCliDeps,
  runClustersCommand,
} from './clusters-commands.js';
import { isCommand, OPTIONS } from './clusters-options.js';
import { helpCommandOf, usageOf } from './clusters-usage.js';
import { parseClustersArgs } from './parse-clusters-args.js';

export type { CliOutput } from '../render-output.js';
export { USAGE_EXIT_CODE } from '../render-output.js';

/**
 * Returns the output of a refused command line: its problems and where
 * the help is (the command's, when `argv` names one).
 */
const refused = (argv: readonly string[], e: CliUsageError): CliOutput =>
  refusedCommandLine(argv, OPTIONS, e.problems, (first) =>
    helpCommandOf(isCommand(first) ? first : undefined)
  );

/**
 * Runs one invocation: `argv` are the arguments after `dsr clusters`,
 * `env` supplies TABLE_NAME / AWS_REGION, `depsFor` builds the registry and
 * connector for the chosen table, and `stackOutputsFor` reads a stack's
 * outputs (for `--stage`) in a region. Never throws: failures become an
 * exit code and lines (or, with `-o json|yaml`, a document) on stderr; a
 * failing check is a report on stdout, exit code 1.
 *
 * @example
 * const out = await runClustersCli(['list'], process.env, depsFor);
 * process.stdout.write(out.stdout);
 * process.exitCode = out.exitCode;
 */
export const runClustersCli = async (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  depsFor: (table: TableTarget) => ClustersCliDeps,
  stackOutputsFor?: StackOutputsFor
): Promise<CliOutput> => {
  let command: ReturnType<typeof parseClustersArgs>;
  try {
    command = parseClustersArgs(argv, env);
  } catch (e) {
    if (e instanceof CliUsageError) return refused(argv, e);
    return printOutcome(failedWith(e), invocationHints(argv, OPTIONS).output);
  }
  if (command.name === 'help') {
    return { exitCode: 0, stdout: usageOf(command.topic), stderr: '' };
  }
  try {
    const table = await resolveTable(command.target, stackOutputsFor);
    const outcome = await runClustersCommand(command, table, depsFor(table));
    return printOutcome(outcome, command.output);
  } catch (e) {
    if (e instanceof CliUsageError) {
      const help = helpCommandOf(command.name);
      return printOutcome(usageFailure(e.problems, help), command.output);
    }
    return printOutcome(failedWith(e), command.output);
  }
};
