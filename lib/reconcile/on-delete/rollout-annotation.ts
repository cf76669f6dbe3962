/**
 * The opt-in of the native OnDelete mode: an apps/v1 DaemonSet with
 * `updateStrategy.type: OnDelete` whose `apps.dsr.dev/rollout` annotation
 * carries Kruise's rollout controls as JSON, e.g.
 * `{"maxUnavailable": 2, "partition": "25%", "selector": {…}, "paused": false,
 * "preDelete": {"labelsHandler": {…}, "markPodNotReady": true}}`.
 * The cluster's own DaemonSet controller still creates every missing pod
 * and writes status; the product only deletes old pods within the budget.
 *
 * Invariants: a DaemonSet without the annotation is not opted in and is
 * never touched; an annotation that does not parse, a `maxSurge`, or the
 * opt-in on a RollingUpdate DaemonSet is refused with the exact reason,
 * never read as something milder.
 */
import { InvalidObjectError } from '../../errors.js';
import { KRUISE_POD_READY } from '../advanced/pod-readiness.js';
import { isIntOrPercent } from '../k8s/int-or-string.js';
import { parseLabelSelector } from '../k8s/label-selector.js';
import { isMap } from '../k8s/meta.js';
import type {
  DaemonSet,
  IntOrString,
  LabelSelector,
  LifecycleHook,
} from '../k8s/types.js';

/** The annotation that opts a DaemonSet in and carries its controls. */
export const ROLLOUT_ANNOTATION = 'apps.dsr.dev/rollout';
/**
 * Set by `kubectl dsr rollout pause` (removed by `resume`): a key of its
 * own, so pausing never edits the controls that GitOps applies.
 */
export const PAUSED_ANNOTATION = 'apps.dsr.dev/rollout-paused';

/** The rollout controls of one opted-in DaemonSet (Kruise's names). */
export interface OnDeleteRolloutControls {
  /** Nodes the rollout may leave without an available pod (default 1). */
  maxUnavailable: IntOrString;
  /** Nodes kept on the old revision (int, or % of the desired count). */
  partition?: IntOrString;
  /** Only nodes matching this label selector are updated (canary). */
  selector?: LabelSelector;
  /** Set in the annotation or by `rollout pause`. */
  paused: boolean;
  /** Held before each delete until the hook's labels or finalizers go. */
  preDelete?: LifecycleHook;
}

/** What a DaemonSet's annotations say about the OnDelete mode. */
export type OnDeleteOptIn =
  | { optedIn: false }
  | { optedIn: true; controls: OnDeleteRolloutControls }
  | { optedIn: true; problems: string[] };

const KNOWN_KEYS = [
  'maxUnavailable',
  'partition',
  'selector',
  'paused',
  'preDelete',
];
const HOOK_KEYS = ['labelsHandler', 'finalizersHandler', 'markPodNotReady'];

const at = (key: string) => `${ROLLOUT_ANNOTATION}: ${key}`;

/** Returns the problem of an int-or-percent field, if any. */
const intOrPercentProblem = (key: string, v: unknown): string | undefined => {
  if (isIntOrPercent(v, 100)) return undefined;
  const what = `${at(key)} must be a whole number or a percentage such as "20%"`;
  return typeof v === 'number' || typeof v === 'string'
    ? `${what}, not ${JSON.stringify(v)}`
    : what;
};

const hookProblems = (v: unknown): string[] => {
  if (!isMap(v)) return [`${at('preDelete')} must be an object`];
  const problems = Object.keys(v)
    .filter((k) => !HOOK_KEYS.includes(k))
    .map(
      (k) =>
        `${at(`preDelete.${k}`)} is not a hook field (${HOOK_KEYS.join(', ')})`
    );
  const { labelsHandler, finalizersHandler, markPodNotReady } = v;
  if (
    labelsHandler !== undefined &&
    !(
      isMap(labelsHandler) &&
      Object.values(labelsHandler).every((x) => typeof x === 'string')
    )
  ) {
    problems.push(`${at('preDelete.labelsHandler')} must be a map of strings`);
  }
  if (
    finalizersHandler !== undefined &&
    !(
      Array.isArray(finalizersHandler) &&
      finalizersHandler.every((x) => typeof x === 'string')
    )
  ) {
    problems.push(
      `${at('preDelete.finalizersHandler')} must be a list of strings`
    );
  }
  if (markPodNotReady !== undefined && typeof markPodNotReady !== 'boolean') {
    problems.push(`${at('preDelete.markPodNotReady')} must be true or false`);
  }
  return problems;
};

/** Returns every problem of the annotation's parsed value. */
const controlProblems = (v: Record<string, unknown>): string[] => {
  const problems: string[] = [];
  if ('maxSurge' in v) {
    problems.push(
      `${at('maxSurge')} cannot work in the OnDelete mode: the cluster's DaemonSet controller creates a pod only where none is left, so no node can run two; remove it, or use an AdvancedDaemonSet for surge`
    );
  }
  for (const k of Object.keys(v)) {
    if (k !== 'maxSurge' && !KNOWN_KEYS.includes(k)) {
      problems.push(
        `${at(k)} is not a rollout control (${KNOWN_KEYS.join(', ')})`
      );
    }
  }
  for (const k of ['maxUnavailable', 'partition']) {
    const problem =
      v[k] === undefined ? undefined : intOrPercentProblem(k, v[k]);
    if (problem) problems.push(problem);
  }
  if (v.selector !== undefined) {
    try {
      if (!isMap(v.selector)) throw new InvalidObjectError('not an object');
      parseLabelSelector(v.selector as LabelSelector);
    } catch (e) {
      problems.push(
        `${at('selector')} is not a label selector: ${(e as Error).message}`
      );
    }
  }
  if (v.paused !== undefined && typeof v.paused !== 'boolean') {
    problems.push(`${at('paused')} must be true or false`);
  }
  if (v.preDelete !== undefined) problems.push(...hookProblems(v.preDelete));
  return problems;
};

/**
 * Returns the problem of `markPodNotReady` on a template without the
 * KruisePodReady gate: the cluster's controller makes pods from the
 * template alone, so only the gate there can take a held pod out of
 * service.
 */
const gateProblems = (ds: DaemonSet, v: Record<string, unknown>): string[] => {
  const hook = v.preDelete as { markPodNotReady?: unknown } | undefined;
  if (hook?.markPodNotReady !== true) return [];
  const gates = ds.spec?.template?.spec?.readinessGates ?? [];
  return gates.some((g) => g.conditionType === KRUISE_POD_READY)
    ? []
    : [
        `${at('preDelete.markPodNotReady')} needs readinessGates: [{conditionType: ${KRUISE_POD_READY}}] in the pod template, since the cluster's DaemonSet controller makes the pods from the template alone`,
      ];
};

/**
 * Returns whether the DaemonSet opted in to the OnDelete mode and, if so,
 * its controls or every reason they cannot be used. A DaemonSet a fleet
 * rollout policy covers (`byFleet`) is opted in without the annotation,
 * with the default controls (maxUnavailable 1).
 */
export const readOnDeleteOptIn = (
  ds: DaemonSet,
  byFleet = false
): OnDeleteOptIn => {
  const annotations = ds.metadata?.annotations ?? {};
  const raw = annotations[ROLLOUT_ANNOTATION];
  if (raw === undefined && !byFleet) return { optedIn: false };
  const type = ds.spec?.updateStrategy?.type ?? 'RollingUpdate';
  if (type !== 'OnDelete') {
    const who =
      raw === undefined
        ? 'a fleet rollout policy covers this DaemonSet, but the OnDelete mode'
        : ROLLOUT_ANNOTATION;
    return {
      optedIn: true,
      problems: [
        `${who} needs updateStrategy.type OnDelete, not ${type}: the cluster's DaemonSet controller rolls a ${type} DaemonSet itself; set updateStrategy.type: OnDelete (one Helm value) or ${raw === undefined ? 'leave it out of the policy' : 'remove the annotation'}`,
      ],
    };
  }
  if (raw === undefined) {
    return {
      optedIn: true,
      controls: {
        maxUnavailable: 1,
        paused: annotations[PAUSED_ANNOTATION] === 'true',
      },
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (e) {
    return {
      optedIn: true,
      problems: [`${ROLLOUT_ANNOTATION} is not JSON: ${(e as Error).message}`],
    };
  }
  if (!isMap(value)) {
    return {
      optedIn: true,
      problems: [
        `${ROLLOUT_ANNOTATION} must be a JSON object of rollout controls`,
      ],
    };
  }
  const problems = [...controlProblems(value), ...gateProblems(ds, value)];
  if (problems.length > 0) return { optedIn: true, problems };
  return {
    optedIn: true,
    controls: {
      maxUnavailable: (value.maxUnavailable as IntOrString | undefined) ?? 1,
      ...(value.partition !== undefined && {
        partition: value.partition as IntOrString,
      }),
      ...(value.selector !== undefined && {
        selector: value.selector as LabelSelector,
      }),
      paused:
        value.paused === true || annotations[PAUSED_ANNOTATION] === 'true',
      ...(value.preDelete !== undefined && {
        preDelete: value.preDelete as LifecycleHook,
      }),
    },
  };
};

/**
 * Returns the DaemonSet as the rolling-update planner reads it: its
 * OnDelete strategy replaced by a RollingUpdate without surge that carries
 * the controls, and the preDelete hook. Only planners see this copy; it is
 * never written.
 */
export const asRollingUpdate = (
  ds: DaemonSet,
  controls: OnDeleteRolloutControls
): DaemonSet => ({
  ...ds,
  spec: {
    ...(ds.spec as NonNullable<DaemonSet['spec']>),
    updateStrategy: {
      type: 'RollingUpdate',
      rollingUpdate: {
        maxUnavailable: controls.maxUnavailable,
        maxSurge: 0,
        ...(controls.partition !== undefined && {
          partition: controls.partition,
        }),
        ...(controls.selector !== undefined && { selector: controls.selector }),
        paused: controls.paused,
      },
    },
    ...(controls.preDelete !== undefined && {
      lifecycle: { preDelete: controls.preDelete },
    }),
  },
});

/**
 * Returns the DaemonSet as its rollout reads it: the RollingUpdate form of
 * an opted-in OnDelete DaemonSet with valid controls, else itself (so a
 * node gaining a canary label wakes either kind alike).
 */
export const rolloutView = (ds: DaemonSet): DaemonSet => {
  const optIn = readOnDeleteOptIn(ds);
  return optIn.optedIn && 'controls' in optIn
    ? asRollingUpdate(ds, optIn.controls)
    : ds;
};
