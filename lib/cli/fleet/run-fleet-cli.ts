/**
 * The fleet rollout CLI behind `dsr fleet`: parses the command line, finds
 * the table (`--stage`: from the stack's outputs), runs the verb, and
 * returns what to print and the exit code (0 ok, 1 failed or refused, 2
 * bad usage) instead of printing, so tests call it directly.
 */
import { CliUsageError } from '../cli-usage-error.js';
import { invocationHints, refusedCommandLine } from '../parse-args-problems.js';
import type { TableTarget } from '../parse-table-locator.js';
import {
  type CliOutput,
  failedWith,
  type Outcome,
  printOutcome,
} from '../render-output.js';
import { resolveTable, type StackOutputsFor } from '../stack-table.js';
import { applyPolicy } from './apply-policy.js';
import { changeControls } from './change-controls.js';
import { deletePolicy } from './delete-policy.js';
import type { FleetCliDeps } from './fleet-cli-deps.js';
import type { FleetTableCommand } from './fleet-command.js';
import { FLEET_OPTIONS, isFleetVerb } from './fleet-options.js';
import { fleetRolloutStatus } from './fleet-rollout-status.js';
import { withStoredPolicy } from './fleet-rollout-view.js';
import { fleetHelpCommandOf, fleetUsageOf } from './fleet-usage.js';
import { listRollouts, rolloutHistory } from './list-rollouts.js';
import { parseFleetArgs } from './parse-fleet-args.js';
import { rollbackMember } from './rollback-member.js';

/** Returns the outcome of one verb. */
const runVerb = async (
  command: FleetTableCommand,
  deps: FleetCliDeps
): Promise<Outcome> => {
  switch (command.verb) {
    case 'apply':
      return applyPolicy(command, deps);
    case 'list':
      return listRollouts(
        await deps.store.list(),
        await deps.registry.list(),
        deps.clock.now()
      );
    case 'status':
      return withStoredPolicy(command.name, deps.store, async (record) =>
        fleetRolloutStatus(record, await deps.registry.list(), deps.clock.now())
      );
    case 'history':
      return withStoredPolicy(command.name, deps.store, rolloutHistory);
    case 'delete':
      return deletePolicy(command, deps);
    case 'rollback':
      return rollbackMember(command, deps);
    default:
      return changeControls(command, deps);
  }
};

/**
 * Returns the output of a refused command line: its problems and where
 * the help is (the verb's, when `argv` names one).
 */
const refused = (argv: readonly string[], e: CliUsageError): CliOutput =>
  refusedCommandLine(argv, FLEET_OPTIONS, e.problems, (first) =>
    fleetHelpCommandOf(isFleetVerb(first) ? first : undefined)
  );

/**
 * Runs one invocation: `argv` are the arguments after `dsr fleet`, `env`
 * supplies TABLE_NAME / AWS_REGION, `depsFor` builds the store, registry
 * and wake for the chosen table, and `stackOutputsFor` reads a stack's
 * outputs (for `--stage`) in a region. Never throws: failures become an
 * exit code and lines (or, with `-o json|yaml`, a document) on stderr.
 *
 * @example
 * const out = await runFleetCli(['status', 'node-agent'], process.env, depsFor);
 * process.stdout.write(out.stdout);
 * process.exitCode = out.exitCode;
 */
export const runFleetCli = async (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  depsFor: (table: TableTarget) => FleetCliDeps,
  stackOutputsFor?: StackOutputsFor
): Promise<CliOutput> => {
  let command: ReturnType<typeof parseFleetArgs>;
  try {
    command = parseFleetArgs(argv, env);
  } catch (e) {
    if (e instanceof CliUsageError) return refused(argv, e);
    return printOutcome(
      failedWith(e),
      invocationHints(argv, FLEET_OPTIONS).output
    );
  }
  if (command.verb === 'help') {
    return { exitCode: 0, stdout: fleetUsageOf(command.topic), stderr: '' };
  }
  try {
    const table = await resolveTable(command.target, stackOutputsFor);
    return printOutcome(await runVerb(command, depsFor(table)), command.output);
  } catch (e) {
    return printOutcome(failedWith(e), command.output);
  }
};
