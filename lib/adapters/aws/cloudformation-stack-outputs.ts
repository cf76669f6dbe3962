/**
 * StackOutputs on CloudFormation (`cloudformation:DescribeStacks`): what
 * `npx dsr clusters --stage NAME` reads the state table's name from.
 */
import {
  type CloudFormationClient,
  DescribeStacksCommand,
} from '@aws-sdk/client-cloudformation';
import type { StackOutputs } from '../../ports/index.js';
import { AwsCallError } from './aws-call-error.js';

/**
 * CloudFormation answers a missing stack with a ValidationError, "Stack
 * with id X does not exist", not with an exception of its own.
 */
const isMissingStack = (e: unknown): boolean =>
  e instanceof Error &&
  e.name === 'ValidationError' &&
  /does not exist/.test(e.message);

/** Reads stack outputs with the CloudFormation client it is given. */
export class CloudFormationStackOutputs implements StackOutputs {
  readonly #client: CloudFormationClient;

  constructor({ client }: { client: CloudFormationClient }) {
    this.#client = client;
  }

  /**
   * Returns the stack's outputs by key, or undefined when it does not exist.
   *
   * @throws AwsCallError when CloudFormation cannot be asked.
   */
  async outputsOf(
    stackName: string
  ): Promise<Readonly<Record<string, string>> | undefined> {
    try {
      const { Stacks } = await this.#client.send(
        new DescribeStacksCommand({ StackName: stackName })
      );
      const stack = Stacks?.[0];
      if (stack === undefined) return undefined;
      const outputs: Record<string, string> = {};
      for (const { OutputKey, OutputValue } of stack.Outputs ?? []) {
        if (OutputKey !== undefined && OutputValue !== undefined) {
          outputs[OutputKey] = OutputValue;
        }
      }
      return outputs;
    } catch (e) {
      if (isMissingStack(e)) return undefined;
      throw new AwsCallError('CloudFormation', `describe stack ${stackName}`, {
        cause: e,
      });
    }
  }
}
