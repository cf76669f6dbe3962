/**
 * Vitest global setup of the aws project: DynamoDB Local and the fauxqs SQS
 * emulator on 127.0.0.1, no control plane (the adapters under test never talk
 * to Kubernetes).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import {
  type AwsEmulators,
  startAwsEmulators,
} from '../testbed/aws-emulators.js';

let emulators: AwsEmulators | undefined;
let logDir: string | undefined;

export async function setup(project: TestProject): Promise<void> {
  logDir = mkdtempSync(path.join(os.tmpdir(), 'dsr-aws-'));
  emulators = await startAwsEmulators(logDir);
  project.provide('dynamodbEndpoint', emulators.dynamodbEndpoint);
  project.provide('sqsEndpoint', emulators.sqsEndpoint);
}

export async function teardown(): Promise<void> {
  await emulators?.stop();
  if (logDir) rmSync(logDir, { recursive: true, force: true });
}
