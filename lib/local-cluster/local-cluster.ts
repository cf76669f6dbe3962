/**
 * The local run's embedded default: the project's control plane with
 * simulated nodes and a sample DaemonSet.
 */
import { ensureBinaries } from './binaries.js';
import { ControlPlane } from './control-plane.js';
import { createNodes } from './simulated-nodes.js';

/** Starts a control plane with `nodes` KWOK nodes and `default/node-agent`. */
export const startLocalCluster = async (
  nodes: number,
  say: (line: string) => void
): Promise<{ kubeconfigPath: string; stop(): Promise<void> }> => {
  say('building or reusing the local control plane binaries…');
  const binDir = ensureBinaries();
  const cp = await ControlPlane.start({ binDir });
  say(`local control plane up: ${cp.server} (kubeconfig ${cp.kubeconfigPath})`);
  const http = cp.http();
  try {
    await createNodes(http, nodes, { prefix: 'kwok-node-' });
    say(`${nodes} simulated nodes Ready`);
    await http.request(
      'create sample',
      'POST',
      '/apis/apps/v1/namespaces/default/daemonsets',
      {
        body: JSON.stringify({
          apiVersion: 'apps/v1',
          kind: 'DaemonSet',
          metadata: { name: 'node-agent' },
          spec: {
            selector: { matchLabels: { app: 'node-agent' } },
            template: {
              metadata: { labels: { app: 'node-agent' } },
              spec: {
                containers: [
                  { name: 'agent', image: 'registry.local/node-agent:1' },
                ],
              },
            },
          },
        }),
      }
    );
    say('sample DaemonSet default/node-agent created');
  } finally {
    http.close();
  }
  return { kubeconfigPath: cp.kubeconfigPath, stop: () => cp.stop() };
};
