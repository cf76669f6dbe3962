/**
 * What `kubectl dsr rollout status` says about an AdvancedDaemonSet: kubectl's
 * DaemonSetStatusViewer messages (k8s.io/kubectl/pkg/polymorphichelpers/
 * rollout_status.go), and its StatefulSet wording while a partition holds
 * nodes back.
 */
import { getPartition } from '../../reconcile/advanced/rollout-controls.js';
import type { DaemonSet } from '../../reconcile/k8s/types.js';
import { invalidSpecCondition } from '../../reconcile/status.js';

/** One look at a rollout: the line to print, and whether it is done. */
export interface RolloutStatus {
  message: string;
  done: boolean;
}

/**
 * Returns the rollout's status line (with its newline) and whether it is done.
 *
 * @throws Error when the reconciler refused the current spec (InvalidSpec).
 */
export const rolloutStatus = (ds: DaemonSet): RolloutStatus => {
  const name = ds.metadata?.name ?? '';
  const s = ds.status;
  const invalid = invalidSpecCondition(ds);
  if (
    invalid?.status === 'True' &&
    invalid.observedGeneration === (ds.metadata?.generation ?? 0)
  ) {
    // kubectl fails the same way on a Deployment past its progress deadline.
    throw new Error(
      `daemon set "${name}" has an invalid spec: ${invalid.message}`
    );
  }
  if ((ds.metadata?.generation ?? 0) > (s?.observedGeneration ?? 0)) {
    return {
      message: 'Waiting for daemon set spec update to be observed...\n',
      done: false,
    };
  }
  const desired = s?.desiredNumberScheduled ?? 0;
  const updated = s?.updatedNumberScheduled ?? 0;
  const partition = getPartition(ds, desired) ?? 0;
  if (partition > 0) {
    const target = Math.max(desired - partition, 0);
    return updated < target
      ? {
          message: `Waiting for partitioned roll out to finish: ${updated} out of ${target} new pods have been updated...\n`,
          done: false,
        }
      : {
          message: `partitioned roll out complete: ${updated} new pods have been updated...\n`,
          done: true,
        };
  }
  if (updated < desired) {
    return {
      message: `Waiting for daemon set "${name}" rollout to finish: ${updated} out of ${desired} new pods have been updated...\n`,
      done: false,
    };
  }
  const available = s?.numberAvailable ?? 0;
  if (available < desired) {
    return {
      message: `Waiting for daemon set "${name}" rollout to finish: ${available} of ${desired} updated pods are available...\n`,
      done: false,
    };
  }
  return {
    message: `daemon set "${name}" successfully rolled out\n`,
    done: true,
  };
};
