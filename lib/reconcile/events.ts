/**
 * Event reasons of the DaemonSet controller (daemon_controller.go and
 * controller_utils.go `RealPodControl`), and the planned-event shape planners
 * return instead of recording events themselves.
 */

export const EventReason = {
  /** Empty selector: the DaemonSet would select every pod. */
  SelectingAll: 'SelectingAll',
  /** Declared upstream but never emitted there either. */
  FailedPlacement: 'FailedPlacement',
  FailedDaemonPod: 'FailedDaemonPod',
  SucceededDaemonPod: 'SucceededDaemonPod',
  SuccessfulCreate: 'SuccessfulCreate',
  FailedCreate: 'FailedCreate',
  SuccessfulDelete: 'SuccessfulDelete',
  FailedDelete: 'FailedDelete',
  /** The own kind's in-place image update (Kruise's reasons). */
  SuccessfulUpdatePodInPlace: 'SuccessfulUpdatePodInPlace',
  FailedUpdatePodInPlace: 'FailedUpdatePodInPlace',
  /** A spec the schema let through but the reconciler cannot act on. */
  InvalidSpec: 'InvalidSpec',
  /** An OnDelete DaemonSet's rollout annotation the product cannot follow. */
  InvalidRollout: 'InvalidRollout',
} as const;
export type EventReason = (typeof EventReason)[keyof typeof EventReason];

/** An event a planner wants recorded on the DaemonSet. */
export interface PlannedEvent {
  type: 'Normal' | 'Warning';
  reason: EventReason;
  message: string;
}
