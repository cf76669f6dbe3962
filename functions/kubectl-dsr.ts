/**
 * `kubectl dsr …`: the kubectl plugin for AdvancedDaemonSets
 * (lib/cli/plugin/run-plugin.ts). Bundled by `npm run build:plugin` into one
 * file that needs no node_modules; put it on PATH as `kubectl-dsr`.
 *
 *   kubectl dsr rollout status advds/node-agent -n kube-system
 */
import { openAdvancedDaemonSets } from '../lib/adapters/kube/kube-advanced-daemon-sets.js';
import { runPlugin } from '../lib/cli/plugin/run-plugin.js';

const out = await runPlugin(process.argv.slice(2), {
  open: openAdvancedDaemonSets,
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  write: (text) => process.stdout.write(text),
});
process.stdout.write(out.stdout);
process.stderr.write(out.stderr);
process.exitCode = out.exitCode;
