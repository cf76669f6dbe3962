/**
 * A campaign's test bed: the local control plane (etcd, kube-apiserver,
 * kube-scheduler, KWOK) with DynamoDB Local and fauxqs, as the benchmarks
 * start it, and for runs of several clusters more API servers (each with
 * its scheduler and KWOK) on the same etcd; runs isolate themselves by
 * namespace and node label.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ControlPlane } from '../../lib/local-cluster/control-plane.js';
import { startBenchTestbed, startTenant } from '../bench/bench-testbed.js';
import type { CampaignBed } from './campaign-run.js';

/** A started bed and how to stop it. */
export interface RunningCampaignBed extends CampaignBed {
  stop(): Promise<void>;
}

/** Starts one bed of `clusters` API servers. */
export const startCampaignBed = async (
  clusters = 1
): Promise<RunningCampaignBed> => {
  const bed = await startBenchTestbed({ aws: true });
  const { emulators, controlPlane } = bed;
  if (emulators === undefined)
    throw new Error('the AWS emulators did not start');
  const tenants: ControlPlane[] = [];
  const stopTenants = async () => {
    for (const t of tenants) await t.stop();
  };
  try {
    for (let i = 1; i < clusters; i++) {
      tenants.push(await startTenant(bed, `campaign-${i}`, true));
    }
  } catch (e) {
    await stopTenants();
    await bed.stop();
    throw e;
  }
  const admins = tenants.map((t) => t.http());
  const workDir = mkdtempSync(path.join(tmpdir(), 'dsr-campaign-'));
  mkdirSync('.build/campaign/logs', { recursive: true });
  return {
    admin: bed.admin,
    adminKubeconfigPath: controlPlane.kubeconfigPath,
    tenants: tenants.map((t, i) => ({
      admin: admins[i] ?? t.http(),
      adminKubeconfigPath: t.kubeconfigPath,
    })),
    kubectl: path.join(bed.binDir, 'kubectl'),
    dynamodbEndpoint: emulators.dynamodbEndpoint,
    sqsEndpoint: emulators.sqsEndpoint,
    workDir,
    logDir: path.resolve('.build/campaign/logs'),
    stop: async () => {
      for (const a of admins) a.close();
      await stopTenants();
      await bed.stop();
      rmSync(workDir, { recursive: true, force: true });
    },
  };
};
