/**
 * Ports the counting half of `updateDaemonSetStatus` and the skip rule of
 * `storeDaemonSetStatus` (pkg/controller/daemon/daemon_controller.go).
 *
 * Invariants: counts come from the oldest pod per node (so a surging node
 * counts as updated only once its old pod is gone); pods on nodes missing
 * from the node list are ignored; `observedGeneration` moves only when the
 * caller says expectations were satisfied; `collisionCount` and conditions
 * other than the reconciler's own `InvalidSpec` are never touched here.
 */
import { isDaemonPodAvailable } from './advanced/pod-readiness.js';
import { ADVANCED_DAEMON_SET, kindOf } from './k8s/daemon-set-kind.js';
import { nameOf } from './k8s/meta.js';
import {
  getTemplateGeneration,
  isPodReady,
  isPodUpdated,
  sortByCreationTimestampAndPhase,
} from './k8s/pod-util.js';
import type { DaemonSet, Node, Pod } from './k8s/types.js';
import { daemonPlacement, type NodePlacement } from './node-should-run.js';

/** The seven counters the controller owns. */
export interface StatusCounters {
  desiredNumberScheduled: number;
  currentNumberScheduled: number;
  numberMisscheduled: number;
  numberReady: number;
  updatedNumberScheduled: number;
  numberAvailable: number;
  numberUnavailable: number;
  /**
   * The own kind's `updateRevision` (Kruise: the current revision's hash);
   * apps/v1 status has no such field.
   */
  updateRevision?: string;
}

/** Returns the status counters for the DaemonSet (upstream's node loop). */
export const calculateStatus = (
  ds: DaemonSet,
  nodes: readonly Node[],
  nodeToDaemonPods: ReadonlyMap<string, readonly Pod[]>,
  hash: string,
  nowMs: number,
  placement: NodePlacement = daemonPlacement(ds)
): StatusCounters => {
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const generation = getTemplateGeneration(ds);
  const c: StatusCounters = {
    desiredNumberScheduled: 0,
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    numberReady: 0,
    updatedNumberScheduled: 0,
    numberAvailable: 0,
    numberUnavailable: 0,
  };
  for (const node of nodes) {
    const pods = nodeToDaemonPods.get(nameOf(node)) ?? [];
    if (!placement(node).shouldRun) {
      if (pods.length > 0) c.numberMisscheduled++;
      continue;
    }
    c.desiredNumberScheduled++;
    const [oldest] = sortByCreationTimestampAndPhase(pods);
    if (oldest === undefined) continue;
    c.currentNumberScheduled++;
    if (isPodReady(oldest)) {
      c.numberReady++;
      if (isDaemonPodAvailable(oldest, minReady, nowMs)) c.numberAvailable++;
    }
    if (isPodUpdated(oldest, hash, generation)) c.updatedNumberScheduled++;
  }
  c.numberUnavailable = c.desiredNumberScheduled - c.numberAvailable;
  if (kindOf(ds) === ADVANCED_DAEMON_SET) c.updateRevision = hash;
  return c;
};

/** The status counters a sync computes, in upstream's order. */
export const COUNTER_KEYS = [
  'desiredNumberScheduled',
  'currentNumberScheduled',
  'numberMisscheduled',
  'numberReady',
  'updatedNumberScheduled',
  'numberAvailable',
  'numberUnavailable',
] as const;

/**
 * Returns whether the stored status already says all this and has observed
 * the current generation, so no write is needed.
 */
export const isStatusUpToDate = (
  ds: DaemonSet,
  counters: StatusCounters
): boolean =>
  COUNTER_KEYS.every((k) => (ds.status?.[k] ?? 0) === counters[k]) &&
  ds.status?.updateRevision === counters.updateRevision &&
  (ds.status?.observedGeneration ?? 0) >= (ds.metadata?.generation ?? 0) &&
  invalidSpecCondition(ds) === undefined;

/**
 * Returns a copy of `ds` carrying the counters, and `observedGeneration` when
 * one is given (upstream sets it to the synced object's generation).
 */
export const withStatus = (
  ds: DaemonSet,
  counters: StatusCounters,
  observedGeneration: number | undefined
): DaemonSet => {
  const status: NonNullable<DaemonSet['status']> = {
    ...structuredClone(ds.status),
    ...counters,
  };
  if (observedGeneration !== undefined) {
    status.observedGeneration = observedGeneration;
  }
  // A spec that syncs is no longer invalid.
  if (invalidSpecCondition(ds) !== undefined) {
    status.conditions = otherConditions(ds);
  }
  return { ...structuredClone(ds), status };
};

/**
 * The condition the reconciler sets on a DaemonSet whose spec it refuses
 * (lib/reconcile/advanced/validate-daemon-set-spec.ts).
 */
export const INVALID_SPEC_CONDITION = 'InvalidSpec';

/** A status condition as the own kind stores it (metav1.Condition-like). */
type StatusCondition = NonNullable<
  NonNullable<DaemonSet['status']>['conditions']
>[number] & { observedGeneration?: number };

/** Returns the DaemonSet's InvalidSpec condition, if it has one. */
export const invalidSpecCondition = (
  ds: DaemonSet
): StatusCondition | undefined =>
  ds.status?.conditions?.find((c) => c.type === INVALID_SPEC_CONDITION);

const otherConditions = (ds: DaemonSet) =>
  (ds.status?.conditions ?? []).filter(
    (c) => c.type !== INVALID_SPEC_CONDITION
  );

/**
 * Returns a copy of `ds` whose status says its spec (of generation
 * `observedGeneration`, by default its own) is invalid, counters untouched;
 * undefined when it already says so with the same message.
 */
export const withInvalidSpec = (
  ds: DaemonSet,
  message: string,
  nowIso: string,
  judgedGeneration = ds.metadata?.generation
): DaemonSet | undefined => {
  const current = invalidSpecCondition(ds);
  const observedGeneration = judgedGeneration ?? 0;
  if (
    current?.status === 'True' &&
    current.message === message &&
    current.observedGeneration === observedGeneration
  ) {
    return undefined;
  }
  const condition = {
    type: INVALID_SPEC_CONDITION,
    status: 'True',
    reason: INVALID_SPEC_CONDITION,
    message,
    // Which spec it judged: a client can tell a fixed spec not yet seen.
    observedGeneration,
    lastTransitionTime:
      current?.status === 'True' ? current.lastTransitionTime : nowIso,
  };
  const status: NonNullable<DaemonSet['status']> = {
    currentNumberScheduled: 0,
    desiredNumberScheduled: 0,
    numberMisscheduled: 0,
    numberReady: 0,
    ...structuredClone(ds.status),
    conditions: [...otherConditions(ds), condition],
  };
  return { ...structuredClone(ds), status };
};
