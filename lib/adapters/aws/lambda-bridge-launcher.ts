/**
 * BridgeLauncher on AWS Lambda: each turn is one asynchronous invocation
 * (`InvocationType: Event`) of the bridge function for its mode — watch
 * turns on the long, larger function, economy turns on the short, small one
 * — so the dispatcher never waits for a run, and each run is a process of
 * its own.
 */
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import type { BridgeLauncher, BridgeTurn } from '../../ports/index.js';
import { AwsCallError, wrappingCalls } from './aws-call-error.js';

/** A Lambda call failed. */
export class LambdaCallError extends AwsCallError {
  constructor(operation: string, options?: ErrorOptions) {
    super('Lambda', operation, options);
    this.name = 'LambdaCallError';
  }
}

const callLambda = wrappingCalls(LambdaCallError);

/** Launches bridge turns as asynchronous Lambda invocations. */
export class LambdaBridgeLauncher implements BridgeLauncher {
  readonly #client: LambdaClient;
  readonly #functions: { watch: string; economy: string };

  constructor(o: {
    client: LambdaClient;
    functions: { watch: string; economy: string };
  }) {
    this.#client = o.client;
    this.#functions = o.functions;
  }

  async launch(turn: BridgeTurn): Promise<void> {
    const functionName = this.#functions[turn.mode];
    const clusters = turn.clusters.map((c) => c.cluster).join(',');
    await callLambda(`launch ${turn.mode} bridge turn for ${clusters}`, () =>
      this.#client.send(
        new InvokeCommand({
          FunctionName: functionName,
          InvocationType: 'Event',
          Payload: new TextEncoder().encode(JSON.stringify(turn)),
        })
      )
    );
  }
}
