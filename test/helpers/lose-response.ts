/**
 * Loses the response of a DynamoDB write that committed, the way a socket
 * reset after the server's commit does: an SDK middleware below the retry
 * middleware lets the request reach DynamoDB Local, then throws a transient
 * error, so the SDK sends the same request again.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';

/** What the middleware did. */
export interface LostResponses {
  /** Responses thrown away so far. */
  lost: number;
}

/**
 * Loses the response of the next `count` commands named `commandName`
 * (e.g. 'UpdateItemCommand') whose input `matches`, after they committed.
 */
export const loseResponsesAfterCommit = (
  client: DynamoDBClient,
  commandName: string,
  matches: (input: Record<string, unknown>) => boolean = () => true,
  count = 1
): LostResponses => {
  const state: LostResponses = { lost: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      if (
        state.lost < count &&
        context.commandName === commandName &&
        matches(args.input as Record<string, unknown>)
      ) {
        state.lost++;
        // A transient network error: the standard retry strategy resends.
        throw Object.assign(new Error('socket hang up after the commit'), {
          name: 'TimeoutError',
          code: 'ECONNRESET',
          $metadata: {},
        });
      }
      return result;
    },
    { step: 'deserialize', name: 'loseResponseAfterCommit' }
  );
  return state;
};
