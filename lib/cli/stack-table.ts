/**
 * `--stage NAME`: the state table of a deployed stage, read from its
 * CloudFormation stack's outputs (infra/resources/outputs.yml), so an
 * operator need not dig the generated table name out of the stack.
 */
import { ReconcilerError } from '../errors.js';
import type { StackOutputs } from '../ports/index.js';
import type { TableLocator, TableTarget } from './parse-table-locator.js';

/**
 * serverless.yml's `service:`: osls names a stage's stack
 * `<service>-<stage>` (a unit test holds the two equal).
 */
export const SERVICE_NAME = 'serverless-daemonset-reconciler';

/** The stack output naming the state table (infra/resources/outputs.yml). */
export const STATE_TABLE_OUTPUT = 'StateTableName';

/** The usage lines of the options that locate the table (`--table` …). */
export const TABLE_LOCATOR_USAGE = `  --table NAME          the state table (default: $TABLE_NAME)
  --stage NAME          instead of --table: the table of the deployed stage
                        NAME (output ${STATE_TABLE_OUTPUT} of stack
                        ${SERVICE_NAME}-NAME)
  --region R            AWS region (default: $AWS_REGION)
  --endpoint URL        DynamoDB endpoint (e.g. DynamoDB Local)`;

/** Returns the name of a stage's CloudFormation stack. */
export const stackNameOf = (stage: string): string =>
  `${SERVICE_NAME}-${stage}`;

/** Opens the stack outputs of a region (undefined: the SDK's default). */
export type StackOutputsFor = (region: string | undefined) => StackOutputs;

/**
 * Returns the table `locator` names: as given, or, for `--stage`, the one
 * its stack's outputs name (in the locator's region). Throws a
 * ReconcilerError naming the stack when it or its output is missing.
 *
 * @example
 * const table = await resolveTable({ stage: 'prod', region: 'eu-west-1' },
 *   (region) => new CloudFormationStackOutputs({ client: … }));
 */
export const resolveTable = async (
  locator: TableLocator,
  stackOutputsFor: StackOutputsFor | undefined
): Promise<TableTarget> => {
  if (!('stage' in locator)) return locator;
  if (stackOutputsFor === undefined) {
    throw new ReconcilerError(
      '--stage cannot be resolved here (no CloudFormation access): give --table'
    );
  }
  const stack = stackNameOf(locator.stage);
  const where = locator.region ?? "the SDK's default region";
  const outputs = await stackOutputsFor(locator.region).outputsOf(stack);
  if (outputs === undefined) {
    throw new ReconcilerError(
      `stack ${stack} not found in ${where}: is stage ${locator.stage} deployed in this account and region? (or give --table)`
    );
  }
  const tableName = outputs[STATE_TABLE_OUTPUT];
  if (tableName === undefined || tableName === '') {
    throw new ReconcilerError(
      `stack ${stack} has no output ${STATE_TABLE_OUTPUT}: deploy it again with this version (infra/resources/outputs.yml), or give --table`
    );
  }
  return {
    tableName,
    ...(locator.region === undefined ? {} : { region: locator.region }),
  };
};
