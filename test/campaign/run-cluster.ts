/**
 * One cluster of a campaign run: a namespace with its own nodes, the
 * reconciler's least-privilege identity, the fault proxy in front of the
 * cluster's API server, the workload and the invariant checker watching it.
 * A run has one such cluster, or several that one stack manages at once.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { USER_AGENT } from '#lib/policy/identity.js';
import { stopProcess } from '../../lib/local-cluster/processes.js';
import { cleanUpRun } from '../bench/bench-testbed.js';
import { createReconcilerIdentity } from '../integration/reconciler-identity.js';
import { ensureAdvancedDaemonSetCrd } from '../testbed/advanced-daemonset-crd.js';
import { createNamespace } from '../testbed/kube-fixtures.js';
import { startUpstreamDaemonSetController } from '../testbed/upstream-controller.js';
import {
  InvariantChecker,
  type Violation,
} from './checker/invariant-checker.js';
import type { FaultPlan } from './fault-plan.js';
import {
  type ApiFaultDecider,
  ApiFaultProxy,
} from './faults/api-fault-proxy.js';
import { type CampaignKind, objectKindOf, ownershipOf } from './run-kind.js';
import { adminTarget, kubeconfigThrough } from './run-support.js';
import type { CampaignBed, ClusterBed } from './run-types.js';
import type { SeededRandom } from './seeded-random.js';
import { Workload } from './workload.js';

/** What one cluster of a run is to be. */
export interface RunClusterSpec {
  cluster: ClusterBed;
  /** How its violations and log name it ('' for a run's first cluster). */
  label: string;
  ns: string;
  kind: CampaignKind;
  nodes: number;
  /** The targets of its workload's actions. */
  random: SeededRandom;
  /** Its API-side faults (its proxy cuts watches as their windows open). */
  plan: FaultPlan;
  decide: ApiFaultDecider;
}

/** A cluster of a run, set up and watched. */
export interface RunCluster {
  label: string;
  ns: string;
  kind: CampaignKind;
  workload: Workload;
  checker: InvariantChecker;
  api: ApiFaultProxy;
  /** The reconciler's kubeconfig, reaching the cluster through `api`. */
  kubeconfigPath: string;
  /** When, after the faults begin, a window opens that cuts every watch. */
  cutsAtMs: number[];
}

/** The field manager of an OnDelete run's workload writes. */
const WORKLOAD_MANAGER = 'dsr-campaign-workload';

/**
 * Returns an admin client whose writes carry a field manager of their own,
 * so the checker tells the workload's writes from the product's (the bed's
 * admin client writes as the product's user agent).
 */
const workloadHttp = (
  kubeconfigPath: string,
  cleanups: (() => Promise<unknown>)[]
): KubeHttp => {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfigPath);
  const http = new KubeHttp({ kubeConfig, userAgent: WORKLOAD_MANAGER });
  cleanups.push(async () => http.close());
  return http;
};

/**
 * Sets a cluster up for a run; each step's undoing goes on `cleanups` (run
 * in reverse), so a set-up that fails half-way leaves nothing behind.
 */
export const setUpRunCluster = async (
  bed: CampaignBed,
  spec: RunClusterSpec,
  cleanups: (() => Promise<unknown>)[]
): Promise<RunCluster> => {
  const { admin, adminKubeconfigPath } = spec.cluster;
  const later: { checker?: InvariantChecker } = {};
  const workload = new Workload(
    spec.kind === 'OnDelete'
      ? workloadHttp(adminKubeconfigPath, cleanups)
      : admin,
    spec.ns,
    adminKubeconfigPath,
    bed.kubectl,
    spec.random,
    {
      note: (t) => later.checker?.note(t),
      markChaos: (p) => later.checker?.markChaos(p),
      markForeign: (p) => later.checker?.markForeign(p),
    },
    spec.kind
  );
  if (spec.kind === 'OnDelete') {
    // As on a managed cluster: the cluster's own DaemonSet controller runs
    // for the whole run and creates every pod (stopped by its PID, after
    // the namespace is gone).
    const logDir = path.join(bed.logDir, `kcm-${spec.ns}`);
    mkdirSync(logDir, { recursive: true });
    const kcm = await startUpstreamDaemonSetController({
      binDir: path.dirname(bed.kubectl),
      kubeconfigPath: adminKubeconfigPath,
      logDir,
    });
    cleanups.push(() => stopProcess(kcm));
  }
  await createNamespace(admin, spec.ns);
  // The namespace goes (and is gone) before the nodes, so KWOK still
  // finishes the deletion of its pods.
  cleanups.push(() => cleanUpRun(admin, spec.ns, workload.nodes));
  const ownKind = spec.kind === 'AdvancedDaemonSet';
  if (ownKind) await ensureAdvancedDaemonSetCrd(admin);
  const identity = await createReconcilerIdentity(
    admin,
    spec.ns,
    ownershipOf(spec.kind),
    adminKubeconfigPath
  );
  cleanups.push(() => identity.remove());
  const target = adminTarget(adminKubeconfigPath);
  const api = await ApiFaultProxy.start(target.server, target.ca);
  api.decide = spec.decide;
  cleanups.push(() => api.close());
  await workload.addNodes(spec.nodes);
  const checker = await InvariantChecker.start({
    kubeconfigPath: adminKubeconfigPath,
    namespace: spec.ns,
    nodeLabel: workload.nodeLabel,
    daemonSetKind: objectKindOf(spec.kind),
    // In the OnDelete mode the cluster's controller makes every pod: a pod
    // spec or DaemonSet written by the product is a second controller.
    ...(spec.kind === 'OnDelete' ? { productFieldManager: USER_AGENT } : {}),
    // About one sync: a redelivery's visibility timeout (6 s), an
    // invocation (5 s) and slack; paused while a fault holds the
    // controller back.
    ineligibleGraceMs: 15_000,
  });
  later.checker = checker;
  cleanups.push(() => checker.stop());
  return {
    label: spec.label,
    ns: spec.ns,
    kind: spec.kind,
    workload,
    checker,
    api,
    kubeconfigPath: kubeconfigThrough(
      identity.kubeconfigPath,
      api,
      path.join(bed.workDir, `${spec.ns}.kubeconfig`)
    ),
    // Watches open before such a window opens are cut when it opens, too.
    cutsAtMs: spec.plan.windows
      .filter(
        (w) =>
          w.kind === 'watch-cut' ||
          w.kind === 'watch-410' ||
          w.kind === 'cluster-unreachable'
      )
      .map((w) => w.fromMs),
  };
};

/** Returns `v` naming the cluster it was found on, when the run has several. */
export const onCluster = (c: RunCluster, v: Violation): Violation =>
  c.label === '' ? v : { ...v, detail: `${c.label}: ${v.detail}` };
