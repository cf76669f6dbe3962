/**
 * What `kubectl dsr` runs against: the cluster it opens, the clock, and
 * where it writes. runPlugin (run-plugin.ts) takes it and hands it to each
 * verb.
 */
import type {
  AdvancedDaemonSets,
  ClusterReader,
  DaemonSetMigrationApi,
} from '../../ports/index.js';
import type { DaemonSetKind } from '../../reconcile/k8s/daemon-set-kind.js';
import type { OpenState } from './inspect-command.js';

/** What the plugin runs against. */
export interface PluginDeps {
  /**
   * Opens the cluster of `--kubeconfig`/`--context`; `namespace` is the
   * context's, `server` its API server's URL (kubectl names it in errors).
   */
  open(target: { kubeconfig?: string; context?: string }): {
    api: AdvancedDaemonSets &
      DaemonSetMigrationApi & {
        /** Reads DaemonSets of `kind` and what a sync reads with them. */
        reader(kind: DaemonSetKind): ClusterReader;
        close(): void;
      };
    namespace: string;
    server?: string;
  };
  now(): number;
  /** The package's version (`kubectl dsr version`). */
  version?: string;
  /** Ends `get -w` (the entry aborts it on SIGINT, as kubectl stops). */
  signal?: AbortSignal;
  sleep(ms: number): Promise<void>;
  /** Opens the reconcilers' state table (plan and explain with --cluster). */
  openState?: OpenState;
  /** Prints one line at once (rollout status progress). */
  write(text: string): void;
  /**
   * Saves a file `migrate` writes before it deletes anything (the target
   * object, the source's copy); returns its path.
   */
  save?(name: string, text: string): Promise<string>;
}
