/**
 * The objects of `kubectl dsr migrate` (the run is migrate-daemon-set.ts):
 * the target's object built from the source, the source as it can be
 * recreated, and kubectl's resource names.
 */
import {
  ADVANCED_DAEMON_SET,
  type DaemonSetKind,
  KRUISE_DAEMON_SET,
  NATIVE_DAEMON_SET,
} from '../../reconcile/k8s/daemon-set-kind.js';
import type { DaemonSet } from '../../reconcile/k8s/types.js';
import { TEMPLATE_GENERATION_ANNOTATION } from '../../reconcile/k8s/types.js';

/** Metadata a migrated object must not carry over. */
const DROPPED_ANNOTATIONS = [
  // Read as the pods' template generation: copied, it would mark every pod
  // with that generation "updated" forever (spec/kruise-ads.md §2.5).
  TEMPLATE_GENERATION_ANNOTATION,
  'kubectl.kubernetes.io/last-applied-configuration',
];

/** Returns the resource name kubectl would print for a kind. */
export const resourceName = (k: DaemonSetKind): string =>
  k === NATIVE_DAEMON_SET
    ? 'daemonset.apps'
    : `${k.kind.toLowerCase()}.${k.group}`;

/** Returns the kind a source kind migrates to. */
export const targetKindOf = (source: DaemonSetKind): DaemonSetKind =>
  source === ADVANCED_DAEMON_SET ? NATIVE_DAEMON_SET : ADVANCED_DAEMON_SET;

/** Returns the rollout fields of the own kind that apps/v1 cannot hold. */
const advancedOnly = (ds: DaemonSet): string[] => {
  const r = ds.spec?.updateStrategy?.rollingUpdate;
  return [
    ...(r?.partition !== undefined ? ['partition'] : []),
    ...(r?.selector !== undefined ? ['rollingUpdate.selector'] : []),
    ...(r?.paused ? ['paused'] : []),
    ...(r?.rollingUpdateType === 'InPlaceIfPossible'
      ? ['InPlaceIfPossible']
      : []),
    ...(ds.spec?.scaleStrategy?.partitionedScaling
      ? ['partitionedScaling']
      : []),
    ...(ds.spec?.lifecycle !== undefined ? ['lifecycle'] : []),
    ...(ds.spec?.burstReplicas !== undefined ? ['burstReplicas'] : []),
  ];
};

/**
 * Returns the object to create for `source` in `target`'s kind, and the
 * source fields that do not carry over.
 */
export const migratedObject = (
  source: DaemonSet,
  sourceKind: DaemonSetKind,
  target: DaemonSetKind
): { object: DaemonSet; dropped: string[] } => {
  const annotations = Object.fromEntries(
    Object.entries(source.metadata?.annotations ?? {}).filter(
      ([k]) => !DROPPED_ANNOTATIONS.includes(k)
    )
  );
  const spec = source.spec;
  const fromKruise = sourceKind === KRUISE_DAEMON_SET;
  const toNative = target === NATIVE_DAEMON_SET;
  const rollingUpdate = spec?.updateStrategy?.rollingUpdate;
  const object: DaemonSet = {
    apiVersion: target.apiVersion,
    kind: target.kind,
    metadata: {
      name: source.metadata?.name ?? '',
      namespace: source.metadata?.namespace ?? '',
      ...(source.metadata?.labels ? { labels: source.metadata.labels } : {}),
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
    },
    spec: fromKruise
      ? (structuredClone(spec) as NonNullable<DaemonSet['spec']>)
      : {
          selector: spec?.selector ?? {},
          template: spec?.template ?? {},
          ...(spec?.minReadySeconds !== undefined
            ? { minReadySeconds: spec.minReadySeconds }
            : {}),
          ...(spec?.revisionHistoryLimit !== undefined
            ? { revisionHistoryLimit: spec.revisionHistoryLimit }
            : {}),
          updateStrategy:
            spec?.updateStrategy?.type === 'OnDelete'
              ? { type: 'OnDelete' }
              : {
                  type: 'RollingUpdate',
                  rollingUpdate: {
                    ...(rollingUpdate?.maxUnavailable !== undefined
                      ? { maxUnavailable: rollingUpdate.maxUnavailable }
                      : {}),
                    ...(rollingUpdate?.maxSurge !== undefined
                      ? { maxSurge: rollingUpdate.maxSurge }
                      : {}),
                  },
                },
        },
  };
  return { object, dropped: toNative ? advancedOnly(source) : [] };
};

/** Metadata the server sets, which a recreated object must not carry. */
const SERVER_SET = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'finalizers',
  'managedFields',
  'ownerReferences',
  'selfLink',
] as const;

/**
 * Returns `source` as it can be created again (server-set metadata and the
 * status dropped): the copy a failed migration restores, and the one saved.
 */
export const recreatableObject = (
  source: DaemonSet,
  kind: DaemonSetKind
): DaemonSet => {
  const metadata = structuredClone(source.metadata ?? {}) as Record<
    string,
    unknown
  >;
  for (const k of SERVER_SET) delete metadata[k];
  return {
    apiVersion: kind.apiVersion,
    kind: kind.kind,
    metadata: metadata as DaemonSet['metadata'],
    spec: structuredClone(source.spec) as NonNullable<DaemonSet['spec']>,
  };
};
