/**
 * Ports the parts of OpenKruise's in-place update that Advanced DaemonSet
 * uses (pkg/util/inplaceupdate: `defaultCalculateInPlaceUpdateSpec` for
 * images, `defaultCheckContainersInPlaceUpdateCompleted`, `Refresh`; and
 * the readiness gate of pkg/controller/daemonset): with `rollingUpdateType:
 * InPlaceIfPossible`, a pod whose template changed only in container images
 * gets the new images patched into its spec instead of being recreated.
 *
 * Protocol (Kruise's names, so tooling that watches them keeps working):
 * pods carry the readiness gate `InPlaceUpdateReady`. An update sets that
 * condition False (reason StartInPlaceUpdate), relabels the pod with the new
 * revision hash, records `apps.kruise.io/inplace-update-state` (the
 * containers' imageIDs before), and patches the images. The kubelet pulls
 * and restarts; once every recorded container reports another imageID (or
 * its spec image), the update is complete and the condition turns True.
 *
 * Assumptions: templates are compared as stored (Kruise: revision data).
 * Invariants: a pod without the gate is never updated in place; an update
 * whose template differs in anything but container images (metadata
 * included, a narrowing of Kruise's rule) is a recreate.
 */
import { isDeepStrictEqual } from 'node:util';
import { getPodCondition, hasReadinessGate } from '../k8s/pod-util.js';
import type { DaemonSet, Pod, PodTemplateSpec } from '../k8s/types.js';
import { CONTROLLER_REVISION_HASH_LABEL } from '../k8s/types.js';

/** The readiness gate and condition of in-place updates. */
export const INPLACE_UPDATE_READY = 'InPlaceUpdateReady';
/** Where an update in flight records what it started from. */
export const INPLACE_UPDATE_STATE_ANNOTATION =
  'apps.kruise.io/inplace-update-state';

/**
 * A pod condition as the status patches of in-place updates and of Kruise's
 * pod readiness (pod-readiness.ts) write it.
 */
export interface PodCondition {
  type: string;
  status: 'True' | 'False';
  reason?: string;
  message?: string;
  lastTransitionTime: string;
}

/** What an in-place update records on the pod (Kruise's JSON shape). */
export interface InPlaceUpdateState {
  revision: string;
  updateTimestamp: string;
  lastContainerStatuses: Record<string, { imageID: string }>;
  updateImages: boolean;
}

/** Returns whether the DaemonSet updates in place where it can. */
export const isInPlaceIfPossible = (ds: DaemonSet): boolean =>
  ds.spec?.updateStrategy?.type === 'RollingUpdate' &&
  ds.spec.updateStrategy.rollingUpdate?.rollingUpdateType ===
    'InPlaceIfPossible';

/** Returns whether the pod carries the InPlaceUpdateReady readiness gate. */
export const hasInPlaceReadinessGate = (pod: Pod): boolean =>
  hasReadinessGate(pod, INPLACE_UPDATE_READY);

const conditionOf = (pod: Pod) => getPodCondition(pod, INPLACE_UPDATE_READY);

/**
 * Returns whether an in-place update leaves the pod serving (Kruise
 * `isDaemonPodAvailable`'s extra clause): no gate, no condition yet, or True.
 */
export const isInPlaceReady = (pod: Pod): boolean =>
  !hasInPlaceReadinessGate(pod) ||
  (conditionOf(pod)?.status ?? 'True') === 'True';

/**
 * Returns the new image per container name when `cur` differs from `old`
 * only in container images, else undefined (a recreate).
 */
export const canUpdateInPlace = (
  old: PodTemplateSpec | undefined,
  cur: PodTemplateSpec | undefined
): Map<string, string> | undefined => {
  const oldContainers = old?.spec?.containers ?? [];
  const curContainers = cur?.spec?.containers ?? [];
  if (oldContainers.length !== curContainers.length) return undefined;
  const images = new Map<string, string>();
  const strip = (t: PodTemplateSpec | undefined) => ({
    ...t,
    spec: {
      ...t?.spec,
      containers: (t?.spec?.containers ?? []).map(({ image: _, ...c }) => c),
    },
  });
  if (!isDeepStrictEqual(strip(old), strip(cur))) return undefined;
  curContainers.forEach((c, i) => {
    if (c.image !== oldContainers[i]?.image)
      images.set(c.name, c.image as string);
  });
  return images.size > 0 ? images : undefined;
};

/** The two writes of one in-place update, in order. */
export interface InPlaceUpdate {
  /** pods/status: InPlaceUpdateReady False (the pod stops serving first). */
  statusPatch: string;
  /** The pod: new revision label, recorded state, new images. */
  podPatch: string;
}

/** Returns the writes that update `pod` in place to `images` of `hash`. */
export const planInPlaceUpdate = (
  pod: Pod,
  images: ReadonlyMap<string, string>,
  hash: string,
  nowIso: string
): InPlaceUpdate => {
  const state: InPlaceUpdateState = {
    revision: hash,
    updateTimestamp: nowIso,
    lastContainerStatuses: Object.fromEntries(
      [...images.keys()].map((name) => [
        name,
        {
          imageID:
            pod.status?.containerStatuses?.find((s) => s.name === name)
              ?.imageID ?? '',
        },
      ])
    ),
    updateImages: true,
  };
  return {
    statusPatch: JSON.stringify({
      status: {
        conditions: [
          {
            type: INPLACE_UPDATE_READY,
            status: 'False',
            reason: 'StartInPlaceUpdate',
            lastTransitionTime: nowIso,
          },
        ],
      },
    }),
    podPatch: JSON.stringify({
      metadata: {
        labels: { [CONTROLLER_REVISION_HASH_LABEL]: hash },
        annotations: {
          [INPLACE_UPDATE_STATE_ANNOTATION]: JSON.stringify(state),
        },
      },
      spec: {
        containers: [...images].map(([name, image]) => ({ name, image })),
      },
    }),
  };
};

const stateOf = (pod: Pod): InPlaceUpdateState | undefined => {
  const text = pod.metadata?.annotations?.[INPLACE_UPDATE_STATE_ANNOTATION];
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as InPlaceUpdateState;
  } catch {
    return undefined;
  }
};

/** Returns the spec image as the kubelet reports it (`:latest` implied). */
const reportedImage = (image: string): string =>
  image.includes(':') ? image : `${image}:latest`;

/**
 * Returns whether the pod's in-place update has finished (Kruise
 * `defaultCheckContainersInPlaceUpdateCompleted`): every recorded container
 * reports another imageID, or the spec's image; no state means nothing runs.
 */
export const isInPlaceUpdateCompleted = (pod: Pod): boolean => {
  const state = stateOf(pod);
  if (state === undefined) return true;
  return Object.entries(state.lastContainerStatuses).every(([name, last]) => {
    const status = pod.status?.containerStatuses?.find((s) => s.name === name);
    if (status === undefined) return false;
    const spec = pod.spec?.containers.find((c) => c.name === name);
    return (
      status.imageID !== last.imageID ||
      status.image === reportedImage(spec?.image ?? '')
    );
  });
};

/**
 * Returns the InPlaceUpdateReady condition that marks the pod ready for
 * service again (Kruise `Refresh`), or undefined when there is nothing to
 * do: no gate, an update still running, or the condition already True.
 */
export const planRefreshUpdateState = (
  pod: Pod,
  nowIso: string
): PodCondition | undefined => {
  if (!hasInPlaceReadinessGate(pod) || !isInPlaceUpdateCompleted(pod)) {
    return undefined;
  }
  if (conditionOf(pod)?.status === 'True') return undefined;
  return {
    type: INPLACE_UPDATE_READY,
    status: 'True',
    lastTransitionTime: nowIso,
  };
};
