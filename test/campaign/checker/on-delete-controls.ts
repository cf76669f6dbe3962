/**
 * The rollout controls of a native OnDelete DaemonSet, read by the checker
 * on its own: an apps/v1 DaemonSet with `updateStrategy.type: OnDelete`
 * opts in with the `apps.dsr.dev/rollout` annotation, a JSON object of
 * Kruise's controls (maxUnavailable, default 1; partition; a canary node
 * selector; paused, also set by the `apps.dsr.dev/rollout-paused`
 * annotation). The cluster's controller creates every pod; the rollout
 * only deletes old ones (docs/on-delete-mode.md).
 */
import type { DaemonSet, IntOrString } from './kube-objects.js';

/** The annotation that opts a DaemonSet in and carries its controls. */
export const ROLLOUT_ANNOTATION = 'apps.dsr.dev/rollout';
const PAUSED_ANNOTATION = 'apps.dsr.dev/rollout-paused';

/** An opted-in DaemonSet's controls, as the checker judges them. */
export interface OnDeleteControls {
  maxUnavailable: IntOrString;
  partition: IntOrString;
  paused: boolean;
  hasSelector: boolean;
}

const isIntOrString = (v: unknown): v is IntOrString =>
  typeof v === 'number' || typeof v === 'string';

/**
 * Returns the controls of an opted-in OnDelete DaemonSet, or undefined
 * when it did not opt in (or its annotation is not a JSON object: the
 * product refuses such a DaemonSet and deletes nothing).
 */
export const onDeleteControls = (
  ds: DaemonSet
): OnDeleteControls | undefined => {
  if (ds.spec.updateStrategy?.type !== 'OnDelete') return undefined;
  const raw = ds.metadata.annotations?.[ROLLOUT_ANNOTATION];
  if (raw === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return undefined;
  }
  const v = value as Record<string, unknown>;
  return {
    maxUnavailable: isIntOrString(v.maxUnavailable) ? v.maxUnavailable : 1,
    partition: isIntOrString(v.partition) ? v.partition : 0,
    paused:
      v.paused === true ||
      ds.metadata.annotations?.[PAUSED_ANNOTATION] === 'true',
    hasSelector: v.selector !== undefined && v.selector !== null,
  };
};
