/**
 * `kubectl dsr migrate`: moves a DaemonSet between kinds without restarting
 * a pod — apps/v1 (or a Kruise apps.kruise.io DaemonSet whose manager is
 * stopped) to the own AdvancedDaemonSet kind, and back to apps/v1.
 *
 * How no pod restarts: the source is deleted with `propagationPolicy:
 * Orphan`, so the garbage collector only strips its ownerReferences; once no
 * pod or ControllerRevision names it, the target is created with the source's
 * template exactly as stored. The target's controller (this product for the
 * own kind, kube-controller-manager for apps/v1) adopts the orphans, finds the
 * revision whose data equals its template (revisions are matched by data, so
 * the other controller's revision is reused with its hash), and sees every
 * pod as up to date. The target is created only after the orphaning, because
 * a controller that saw pods still owned by another would create duplicates.
 */
import type { DaemonSetMigrationApi } from '../../ports/index.js';
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

/** How a migration went, for the plugin to print. */
export interface MigrationReport {
  lines: string[];
}

/** What a migration run needs beyond the API. */
export interface MigrationOptions {
  dryRun: boolean;
  timeoutMs: number;
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** How often the orphaning is checked while it is waited for. */
const ORPHAN_POLL_MS = 250;

/**
 * Moves `name` from `sourceKind` to its target kind; returns what to print.
 * Throws when the source is missing, the target exists, or the orphaning
 * does not finish in time.
 */
export const migrateDaemonSet = async (
  api: DaemonSetMigrationApi,
  sourceKind: DaemonSetKind,
  namespace: string,
  name: string,
  o: MigrationOptions
): Promise<MigrationReport> => {
  const target = targetKindOf(sourceKind);
  const source = await api.find(sourceKind, namespace, name);
  if (source === undefined) {
    throw new Error(
      `${resourceName(sourceKind)} "${name}" not found in ${namespace}`
    );
  }
  if ((await api.find(target, namespace, name)) !== undefined) {
    throw new Error(
      `${resourceName(target)} "${name}" already exists in ${namespace}`
    );
  }
  const { object, dropped } = migratedObject(source, sourceKind, target);
  const what = `${resourceName(sourceKind)}/${name} → ${resourceName(target)}/${name}`;
  const lines = dropped.length
    ? [`warning: ${resourceName(target)} has no ${dropped.join(', ')}; dropped`]
    : [];
  if (o.dryRun) {
    return {
      lines: [
        ...lines,
        `${what} (dry run): would orphan its pods and revisions, then create:`,
        JSON.stringify(object, null, 2),
      ],
    };
  }
  const uid = source.metadata?.uid ?? '';
  await api.deleteOrphaning(sourceKind, namespace, name, uid);
  const deadline = o.now() + o.timeoutMs;
  for (;;) {
    const dependents = await api.dependents(namespace, source.spec?.selector);
    const owned = dependents.filter((d) =>
      (d.metadata?.ownerReferences ?? []).some((r) => r.uid === uid)
    ).length;
    if (owned === 0) break;
    if (o.now() >= deadline) {
      throw new Error(
        `timed out waiting for the garbage collector to orphan ${owned} object(s) of ${what}`
      );
    }
    await o.sleep(ORPHAN_POLL_MS);
  }
  await api.create(target, namespace, object);
  return {
    lines: [
      ...lines,
      `${what} migrated (pods and revisions kept for adoption)`,
    ],
  };
};
