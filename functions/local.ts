/**
 * `npm start`: the product in one process — the watch-bridge and reconcile
 * workers joined by the in-process work queue, state in memory — against
 * the project's own local control plane with simulated nodes and a sample
 * of the mode, or against the cluster of an explicit `--kubeconfig`.
 * Prints DaemonSet progress until Ctrl-C. The composition is
 * lib/wiring/local-run.ts.
 *
 *   npm start                          # apps/v1, local control plane, 5 KWOK nodes
 *   npm start -- --own-kind            # AdvancedDaemonSets beside KCM's DaemonSet controller
 *   npm start -- --on-delete           # annotated OnDelete DaemonSets beside it
 *   npm start -- --kubeconfig ~/.kube/config [--context NAME] [--ownership MODE]
 */

import { runLocal } from '../lib/wiring/local-run.js';

await runLocal(process.argv.slice(2));
