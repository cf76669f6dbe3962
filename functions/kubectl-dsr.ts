/**
 * `kubectl dsr …` (and `dsr …`): the kubectl plugin for DaemonSets of both
 * kinds (lib/cli/plugin/run-plugin.ts) on a kubeconfig, as kubectl opens
 * one; run by functions/dsr.ts.
 *
 *   kubectl dsr rollout status advds/node-agent -n kube-system
 *   kubectl dsr explain node gpu-1 --ds kube-system/node-agent
 */
import { openAdvancedDaemonSets } from '../lib/adapters/kube/kube-advanced-daemon-sets.js';
import { runPlugin } from '../lib/cli/plugin/run-plugin.js';

/** Runs `kubectl dsr ARGV…`; rollout status prints its progress at once. */
export const runKubectlDsr = (argv: readonly string[]) =>
  runPlugin(argv, {
    open: openAdvancedDaemonSets,
    now: () => Date.now(),
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    write: (text) => process.stdout.write(text),
  });
