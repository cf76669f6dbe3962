/**
 * The local run's embedded default: the project's control plane with
 * simulated nodes and the mode's sample `default/node-agent`. For the own
 * kind and the OnDelete mode it also runs kube-controller-manager's
 * DaemonSet controller, as a managed cluster does, and for the own kind it
 * installs the CRD.
 */
import type { Ownership } from '../ports/index.js';
import { ensureAdvancedDaemonSetCrd } from './advanced-daemon-set-crd.js';
import { ensureBinaries } from './binaries.js';
import { ControlPlane } from './control-plane.js';
import { sampleDaemonSet } from './sample-daemon-set.js';
import { createNodes } from './simulated-nodes.js';

/** Starts a control plane with `nodes` KWOK nodes and the mode's sample. */
export const startLocalCluster = async (
  nodes: number,
  say: (line: string) => void,
  ownership: Ownership = 'apps/v1'
): Promise<{ kubeconfigPath: string; stop(): Promise<void> }> => {
  say('building or reusing the local control plane binaries…');
  const binDir = ensureBinaries();
  const managed = ownership !== 'apps/v1';
  const cp = await ControlPlane.start({ binDir, daemonSetController: managed });
  say(`local control plane up: ${cp.server} (kubeconfig ${cp.kubeconfigPath})`);
  if (managed) say("kube-controller-manager's DaemonSet controller on");
  const http = cp.http();
  try {
    await createNodes(http, nodes, { prefix: 'kwok-node-' });
    say(`${nodes} simulated nodes Ready`);
    if (ownership === 'apps.dsr.dev/v1beta1') {
      await ensureAdvancedDaemonSetCrd(http);
      say('CRD advanceddaemonsets.apps.dsr.dev installed');
    }
    const sample = sampleDaemonSet(ownership);
    await http.request('create sample', 'POST', sample.path, {
      body: JSON.stringify(sample.body),
    });
    say(`${sample.what} created`);
  } catch (e) {
    await cp.stop();
    throw e;
  } finally {
    http.close();
  }
  return { kubeconfigPath: cp.kubeconfigPath, stop: () => cp.stop() };
};
