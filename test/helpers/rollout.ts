/**
 * Helpers for rolling-update scenarios: upstream's `markPodsReady`,
 * `setPodReadiness`, `newUpdateSurge`, `newUpdateUnavailable` and the
 * template bump of `ds.Spec.Template.Spec.Containers[0].Image = …`.
 */
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import { markPodReady, setPodReady, setTemplate } from './builders.js';
import type { Harness } from './harness.js';

type Strategy = NonNullable<DaemonSet['spec']>['updateStrategy'];

/** Upstream `newUpdateSurge(v)`. */
export const newUpdateSurge = (value: number | string): Strategy => ({
  type: 'RollingUpdate',
  rollingUpdate: { maxUnavailable: 0, maxSurge: value },
});

/** Upstream `newUpdateUnavailable(v)`. */
export const newUpdateUnavailable = (value: number | string): Strategy => ({
  type: 'RollingUpdate',
  rollingUpdate: { maxUnavailable: value },
});

/** Changes the stored DaemonSet's image (a template change, new generation). */
export const setImage = (h: Harness, ds: DaemonSet, image: string): void => {
  const stored = h.cluster.daemonSets.find(
    (d) => d.metadata?.uid === ds.metadata?.uid
  ) as DaemonSet;
  setTemplate(stored, (t) => {
    const [c] = t.spec?.containers ?? [];
    if (c) c.image = image;
  });
};

/** Changes the stored DaemonSet's spec in place. */
export const updateSpec = (
  h: Harness,
  ds: DaemonSet,
  mutate: (spec: NonNullable<DaemonSet['spec']>) => void
): void => {
  const stored = h.cluster.daemonSets.find(
    (d) => d.metadata?.uid === ds.metadata?.uid
  ) as DaemonSet;
  if (stored.spec) mutate(stored.spec);
};

/** Upstream `markPodsReady`: every pod Ready since now. */
export const markPodsReady = (h: Harness): void => {
  for (const pod of h.cluster.pods) markPodReady(pod, h.clock.now());
};

const isReady = (pod: Pod): boolean =>
  pod.status?.conditions?.some(
    (c) => c.type === 'Ready' && c.status === 'True'
  ) ?? false;

/**
 * Upstream `setPodReadiness`: flips `count` pods matching `match` to
 * `ready` at the clock's time; throws if fewer match.
 */
export const setPodReadiness = (
  h: Harness,
  ready: boolean,
  count: number,
  match: (pod: Pod) => boolean
): void => {
  let left = count;
  for (const pod of h.cluster.pods) {
    if (left <= 0) break;
    if (pod.metadata?.deletionTimestamp || isReady(pod) === ready) continue;
    if (!match(pod)) continue;
    setPodReady(pod, ready, h.clock.now());
    left--;
  }
  if (left > 0) throw new Error(`could not mark ${left} pods ready=${ready}`);
};

/** Returns the number of pods whose Ready condition is True. */
export const readyCount = (h: Harness): number =>
  h.cluster.pods.filter(isReady).length;
