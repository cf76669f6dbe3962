/**
 * What the verbs of `dsr fleet` run against: the fleet rollout store, the
 * cluster registry (the wave plan), the clock, the policy file, and how to
 * wake a rollout's sync once its policy or controls changed.
 */
import type {
  Clock,
  ClusterRegistry,
  FleetRolloutStore,
  MemberTemplates,
} from '../../ports/index.js';
import { describeError } from '../describe-error.js';
import { failed, type Outcome } from '../render-output.js';

/** What the verbs run against, built once the table is known. */
export interface FleetCliDeps {
  store: FleetRolloutStore;
  /** The registered clusters, with their labels. */
  registry: Pick<ClusterRegistry, 'list'>;
  clock: Clock;
  /** Returns a file's text (`apply -f FILE`; `-` is stdin). */
  readTextFile(path: string): string | Promise<string>;
  /**
   * Opens a member cluster with the operator's kubeconfig (`rollback`):
   * its templates, and the server its context points at.
   */
  openMember?: (target: { kubeconfig?: string; context?: string }) => {
    api: MemberTemplates;
    server?: string;
  };
  /**
   * Asks the rollout of policy `name` to sync soon; absent, it takes the
   * change at its next sync.
   */
  wake?: (name: string) => Promise<void>;
}

/**
 * Returns `done` once the rollout of `name` is woken; when waking fails,
 * an error that says the change is stored and how to retry it.
 */
export const wakeRollout = async (
  name: string,
  deps: Pick<FleetCliDeps, 'wake'>,
  done: Outcome,
  retry: string
): Promise<Outcome> => {
  try {
    await deps.wake?.(name);
    return done;
  } catch (e) {
    return failed(
      `the change to ${name} is stored, but its rollout was not woken (${describeError(e)}): it takes the change at its next sync; ${retry} to wake it`
    );
  }
};
