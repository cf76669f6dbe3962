/**
 * The benchmarks' own test bed, started the way the integration project's
 * global setup starts it (test/integration/global-setup.ts): the local
 * control plane with KWOK, and optionally DynamoDB Local and fauxqs.
 */
import path from 'node:path';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { ApiErrorReason, isApiError, toError } from '#lib/errors.js';
import {
  createNodes,
  deleteNodes,
  type NodeSpec,
} from '#lib/local-cluster/simulated-nodes.js';
import type { Node } from '#lib/reconcile/k8s/types.js';
import { ensureBinaries } from '../../lib/local-cluster/binaries.js';
import { ControlPlane } from '../../lib/local-cluster/control-plane.js';
import { waitFor } from '../../lib/local-cluster/processes.js';
import {
  type AwsEmulators,
  startAwsEmulators,
} from '../testbed/aws-emulators.js';
import { deleteNamespace } from '../testbed/kube-fixtures.js';
import { say } from './markdown.js';

/** A running bench test bed. */
export interface BenchTestbed {
  binDir: string;
  controlPlane: ControlPlane;
  /** Present when started with `aws: true`. */
  emulators: AwsEmulators | undefined;
  /** A raw client with the admin identity. */
  admin: KubeHttp;
  logDir: string;
  /** How long starting took (ms). */
  startMs: number;
  stop(): Promise<void>;
}

/** Starts the control plane (and the AWS emulators when `aws`). */
export const startBenchTestbed = async ({
  aws,
}: {
  aws: boolean;
}): Promise<BenchTestbed> => {
  const started = Date.now();
  const binDir = ensureBinaries();
  const controlPlane = await ControlPlane.start({ binDir });
  const logDir = path.join(controlPlane.workDir, 'logs');
  let emulators: AwsEmulators | undefined;
  try {
    emulators = aws ? await startAwsEmulators(logDir) : undefined;
  } catch (e) {
    await controlPlane.stop();
    throw e;
  }
  const admin = controlPlane.http();
  return {
    binDir,
    controlPlane,
    emulators,
    admin,
    logDir,
    startMs: Date.now() - started,
    stop: async () => {
      admin.close();
      await emulators?.stop();
      await controlPlane.stop();
    },
  };
};

/**
 * Creates `count` KWOK nodes in batches of `batchSize` (each batch's POSTs in
 * parallel, then waiting until the batch is Ready, so KWOK is never asked
 * for more than one batch at a time) and returns their names.
 */
export const createNodesInBatches = async (
  admin: KubeHttp,
  count: number,
  spec: NodeSpec,
  batchSize = 100
): Promise<string[]> => {
  const names: string[] = [];
  for (let b = 0; b * batchSize < count; b++) {
    const n = Math.min(batchSize, count - b * batchSize);
    names.push(
      ...(await createNodes(admin, n, {
        ...spec,
        prefix: `${spec.prefix}${b}-`,
      }))
    );
  }
  return names;
};

/** Returns the number of nodes in the cluster. */
export const countNodes = async (admin: KubeHttp): Promise<number> =>
  (await admin.list<Node>('list nodes', '/api/v1/nodes')).length;

/**
 * Deletes the namespace of one run, then its nodes, and waits until the
 * namespace is gone, so the next run starts from a quiet cluster. The nodes
 * go last: KWOK finishes the graceful deletion of pods only on nodes it
 * still manages (pods of deleted nodes wait for the pod GC's quarantine).
 */
export const cleanUpRun = async (
  admin: KubeHttp,
  ns: string,
  nodes: readonly string[]
): Promise<void> => {
  const started = Date.now();
  // Its pods first, at once: otherwise the namespace controller waits out
  // their grace period (about 10 s a run). Nothing recreates them: the
  // run's controller is gone by now.
  // Best effort: 5,000 pods may outlast the client's 30-s timeout (session
  // 24: it did, and the run died) while the server goes on deleting them.
  await admin
    .request(
      'delete pods',
      'DELETE',
      `/api/v1/namespaces/${ns}/pods?gracePeriodSeconds=0`
    )
    .catch((e: unknown) =>
      say(`clean-up of ${ns}: deleting its pods at once: ${toError(e).message}`)
    );
  await deleteNamespace(admin, ns);
  await waitFor(
    `namespace ${ns} to be deleted`,
    async () => {
      try {
        await admin.request('get ns', 'GET', `/api/v1/namespaces/${ns}`);
        return undefined;
      } catch (e) {
        if (isApiError(e, ApiErrorReason.NotFound)) return true;
        throw e;
      }
    },
    600_000,
    500
  );
  await deleteNodes(admin, nodes);
  say(`clean-up of ${ns}: ${Date.now() - started} ms`);
};

/**
 * Starts another cluster on the bench's etcd under its own key prefix: its
 * own kube-apiserver, kube-scheduler and KWOK (many clusters, one etcd),
 * and the support controllers when `supportControllers` (a cluster whose
 * namespaces are deleted and whose pods are collected, as the campaign's).
 */
export const startTenant = (
  bed: BenchTestbed,
  prefix: string,
  supportControllers = false
): Promise<ControlPlane> =>
  ControlPlane.start({
    binDir: bed.binDir,
    sharedEtcd: {
      clientPort: bed.controlPlane.etcdClientPort,
      prefix: `/${prefix}`,
    },
    supportControllers,
  });
