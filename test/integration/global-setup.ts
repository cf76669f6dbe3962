/**
 * Vitest global setup of the integration project: one local control plane
 * for the whole run; tests isolate themselves by namespace.
 */
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { ensureBinaries } from '../../lib/local-cluster/binaries.js';
import { ControlPlane } from '../../lib/local-cluster/control-plane.js';
import {
  type AwsEmulators,
  startAwsEmulators,
} from '../testbed/aws-emulators.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kubeconfigPath: string;
    binDir: string;
    /** Where tests may put logs of processes they start. */
    logDir: string;
    dynamodbEndpoint: string;
    sqsEndpoint: string;
    /** The test bed's etcd: more clusters may share it under a prefix. */
    etcdClientPort: number;
  }
}

let controlPlane: ControlPlane | undefined;
let emulators: AwsEmulators | undefined;

export async function setup(project: TestProject): Promise<void> {
  const binDir = ensureBinaries();
  const started = Date.now();
  controlPlane = await ControlPlane.start({ binDir });
  console.log(
    `test bed up in ${Date.now() - started} ms (${controlPlane.workDir})`
  );
  project.provide('kubeconfigPath', controlPlane.kubeconfigPath);
  project.provide('binDir', binDir);
  project.provide('logDir', path.join(controlPlane.workDir, 'logs'));
  project.provide('etcdClientPort', controlPlane.etcdClientPort);
  emulators = await startAwsEmulators(path.join(controlPlane.workDir, 'logs'));
  project.provide('dynamodbEndpoint', emulators.dynamodbEndpoint);
  project.provide('sqsEndpoint', emulators.sqsEndpoint);
}

export async function teardown(): Promise<void> {
  const dead = controlPlane?.deadComponents() ?? [];
  if (dead.length > 0) {
    console.error(`test bed components died: ${dead.join(', ')}`);
    console.error(controlPlane?.logs());
  }
  await emulators?.stop();
  await controlPlane?.stop();
}
