/**
 * The command line of `npx dsr fleet <verb> [NAME] [options]`: parsed with
 * node:util `parseArgs` (strict), then checked per verb, so an option that
 * does not apply is an error instead of being silently ignored.
 */
import { CliUsageError } from '../cli-usage-error.js';
import {
  checkOptionsApply,
  helpAskedFor,
  oneOfCommands,
  parseCommandLine,
} from '../parse-args-problems.js';
import { tableLocatorOf } from '../parse-table-locator.js';
import {
  FLEET_VERBS,
  type FleetCommand,
  type FleetOutputFormat,
  type FleetVerb,
} from './fleet-command.js';
import {
  FLEET_COMMON_OPTIONS,
  FLEET_OPTIONS,
  FLEET_VERB_ARGUMENTS,
  FLEET_VERB_OPTIONS,
} from './fleet-options.js';

type Values = ReturnType<
  typeof parseCommandLine<typeof FLEET_OPTIONS>
>['values'];

/** Returns the verb; a missing or unknown one is a usage error. */
const fleetVerbOf = (name: string | undefined): FleetVerb =>
  oneOfCommands(name, FLEET_VERBS, 'verb');

/** Records missing and extra positional arguments. */
const checkArguments = (
  verb: FleetVerb,
  given: readonly string[],
  problems: string[]
): void => {
  const wanted = FLEET_VERB_ARGUMENTS[verb];
  if (given.length < wanted.length) {
    problems.push(`${verb} needs ${wanted.join(' ')}`);
  }
  if (given.length > wanted.length) {
    problems.push(
      `unexpected argument(s): ${given.slice(wanted.length).join(' ')}`
    );
  }
};

/** Returns the output format (`-o`), recording a wrong one. */
const outputOf = (values: Values, problems: string[]): FleetOutputFormat => {
  const asked = values.output;
  if (asked === undefined || asked === 'json' || asked === 'yaml') {
    return asked ?? 'text';
  }
  problems.push(
    `unknown output format ${JSON.stringify(asked)}: use json or yaml`
  );
  return 'text';
};

/**
 * Returns the command `argv` (the arguments after `dsr fleet`) asks for;
 * throws one CliUsageError listing every problem. `env` supplies
 * `TABLE_NAME` and `AWS_REGION` when `--table` (or `--stage`) and
 * `--region` are not given.
 *
 * @example
 * const command = parseFleetArgs(['status', 'node-agent'], process.env);
 */
export const parseFleetArgs = (
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>
): FleetCommand => {
  const { values, positionals } = parseCommandLine(argv, FLEET_OPTIONS);
  const [first, ...rest] = positionals;
  // `help apply`, `apply --help`, `--help`.
  const help = helpAskedFor(positionals, values.help);
  if (help !== undefined) {
    return help.topic === undefined
      ? { verb: 'help' }
      : { verb: 'help', topic: fleetVerbOf(help.topic) };
  }
  const verb = fleetVerbOf(first);
  const problems: string[] = [];
  checkArguments(verb, rest, problems);
  checkOptionsApply(
    verb,
    values,
    [...FLEET_COMMON_OPTIONS, ...FLEET_VERB_OPTIONS[verb]],
    problems
  );
  const output = outputOf(values, problems);
  const target = tableLocatorOf(values, env, problems);
  if (verb === 'apply' && values.filename === undefined) {
    problems.push('apply needs -f FILE');
  }
  if (problems.length > 0) throw new CliUsageError(problems);
  const common = { target, output };
  // The second argument: approve's WAVE, rollback's CLUSTER.
  const [name = '', wave = ''] = rest;
  switch (verb) {
    case 'apply':
      return {
        verb,
        ...common,
        file: values.filename ?? '',
        dryRun: values['dry-run'] ?? false,
      };
    case 'list':
      return { verb, ...common };
    case 'approve':
      return { verb, ...common, name, wave };
    case 'rollback':
      return {
        verb,
        ...common,
        name,
        cluster: wave,
        ...(values.kubeconfig === undefined
          ? {}
          : { kubeconfig: values.kubeconfig }),
        ...(values.context === undefined ? {} : { context: values.context }),
        dryRun: values['dry-run'] ?? false,
      };
    case 'delete':
      return { verb, ...common, name, force: values.force ?? false };
    default:
      return { verb, ...common, name };
  }
};
