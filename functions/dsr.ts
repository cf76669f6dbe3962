/**
 * `dsr`, the product's command, bundled once into .build/dsr.mjs (npm's
 * `prepare`) and installed under two names: `dsr` and `kubectl-dsr`, so
 * that kubectl finds it as a plugin.
 *
 *   npx dsr clusters list --stage prod          # the registry (AWS side)
 *   npx dsr fleet status node-agent --stage prod # fleet rollouts (AWS side)
 *   kubectl dsr plan kube-system/node-agent     # a cluster (kubeconfig side)
 *
 * `clusters` and `fleet` talk to the state table; every other command to a
 * cluster.
 */
import './require-node.js';
import { runClusters } from './clusters.js';
import { runFleet } from './fleet.js';
import { runKubectlDsr } from './kubectl-dsr.js';

const [first, ...rest] = process.argv.slice(2);
// kubectl's interrupt handler: stop a watch, exit 1 (kubectl/pkg/util/interrupt).
const interrupted = new AbortController();
process.once('SIGINT', () => {
  interrupted.abort();
  process.exit(1);
});
const out =
  first === 'clusters'
    ? await runClusters(rest)
    : first === 'fleet'
      ? await runFleet(rest)
      : await runKubectlDsr(process.argv.slice(2), interrupted.signal);
process.stdout.write(out.stdout);
process.stderr.write(out.stderr);
// Exit at once: keep-alive sockets of the SDK and of a timed-out check must
// not hold the process open (writes to pipes and files are synchronous).
process.exit(out.exitCode);
