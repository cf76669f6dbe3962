/**
 * The ports of a deployment as an operator's tools see it: the outputs of
 * its CloudFormation stack (the state table's name, the roles' ARNs).
 */

/** Reads a deployed stack's outputs. */
export interface StackOutputs {
  /**
   * Returns the stack's outputs by key (`StateTableName` → the table), or
   * undefined when no stack of that name exists.
   */
  outputsOf(
    stackName: string
  ): Promise<Readonly<Record<string, string>> | undefined>;
}
