/**
 * A campaign's test bed: the local control plane (etcd, kube-apiserver,
 * kube-scheduler, KWOK) with DynamoDB Local and fauxqs, as the benchmarks
 * start it; runs isolate themselves by namespace and node label.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBenchTestbed } from '../bench/bench-testbed.js';
import type { CampaignBed } from './campaign-run.js';

/** A started bed and how to stop it. */
export interface RunningCampaignBed extends CampaignBed {
  stop(): Promise<void>;
}

/** Starts one bed. */
export const startCampaignBed = async (): Promise<RunningCampaignBed> => {
  const bed = await startBenchTestbed({ aws: true });
  const { emulators, controlPlane } = bed;
  if (emulators === undefined)
    throw new Error('the AWS emulators did not start');
  const workDir = mkdtempSync(path.join(tmpdir(), 'dsr-campaign-'));
  mkdirSync('.build/campaign/logs', { recursive: true });
  return {
    admin: bed.admin,
    adminKubeconfigPath: controlPlane.kubeconfigPath,
    kubectl: path.join(bed.binDir, 'kubectl'),
    dynamodbEndpoint: emulators.dynamodbEndpoint,
    sqsEndpoint: emulators.sqsEndpoint,
    workDir,
    logDir: path.resolve('.build/campaign/logs'),
    stop: async () => {
      await bed.stop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
};
