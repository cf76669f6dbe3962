/**
 * `kubectl dsr migrate`: moves a DaemonSet between kinds without restarting
 * a pod — apps/v1 (or a Kruise apps.kruise.io DaemonSet whose manager is
 * stopped) to the own AdvancedDaemonSet kind, and back to apps/v1 — and
 * never leaves the DaemonSet with neither object.
 *
 * The order, and why the target is not created first: a DaemonSet
 * controller claims only orphans (upstream `ClaimPods`, lib/sync/claim.ts).
 * A target created while the source still controls the pods would see
 * every node without a pod of its own and create a second pod there, and
 * would find the source's ControllerRevision under its own name, count a
 * hash collision and give every pod a new hash (a restart of all of them at
 * the next rollout step). No field holds kube-controller-manager back, so
 * the pods must be orphans before the target exists. What hands them over:
 *
 * 1. every write is sent first with `dryRun=All` (the target's create: CRD,
 *    RBAC, webhooks and policies, schema; the source's finalizer, delete
 *    and a release of one pod and one revision: RBAC); a refusal changes
 *    nothing;
 * 2. the target object and the source's copy are saved to files;
 * 3. the source gets the finalizer MIGRATE_FINALIZER, then is deleted with
 *    `propagationPolicy: Orphan`: it stays, terminating, and no controller
 *    syncs a terminating DaemonSet (upstream returns early, as does
 *    lib/sync/sync-daemon-set.ts), so nothing re-adopts what is released;
 * 4. its pods and revisions are released here (the garbage collector does
 *    the same, at its own pace: 5,000 pods take minutes at its 20 qps);
 * 5. the target is created with the template exactly as stored; its
 *    controller adopts the orphans and reuses the revision whose data
 *    equals its template, hash and all, so every pod is up to date;
 * 6. once every released pod and revision is controlled by the target, the
 *    finalizer is removed and the source goes.
 *
 * A failed create (or release) recreates the source from its copy, whose
 * controller adopts the pods back. A timeout after the create leaves both
 * objects; a re-run finds the source terminating with the finalizer and
 * resumes from step 4.
 */
import type { DaemonSetMigrationApi, WriteOptions } from '../../ports/index.js';
import type { DaemonSetKind } from '../../reconcile/k8s/daemon-set-kind.js';
import type { DaemonSet } from '../../reconcile/k8s/types.js';
import { describeError } from '../describe-error.js';
import type { DryRun } from './dry-run.js';
import {
  migratedObject,
  recreatableObject,
  resourceName,
  targetKindOf,
} from './migrate.js';
import {
  finalizerPatch,
  finalizersOf,
  handOver,
  MIGRATE_FINALIZER,
  ownedBy,
  type Run,
  removeFinalizer,
} from './migrate-hand-over.js';

/** How a migration went, for the plugin to print. */
export interface MigrationReport {
  lines: string[];
}

/** What a migration run needs beyond the API. */
export interface MigrationOptions {
  dryRun: DryRun;
  /** How long the hand-over (adoption, or the source's restore) may take. */
  timeoutMs: number;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Writes one saved object; returns where it went. */
  save(name: string, text: string): Promise<string>;
  /** The kind to move to (default: targetKindOf the source). */
  target?: DaemonSetKind;
}

/** The CRD a kind needs, named in the refusal when it is not installed. */
const crdOf = (k: DaemonSetKind) =>
  `${k.resource}.${k.group}${k.group === 'apps.dsr.dev' ? ' (infra/kubernetes/advanced-daemonset-crd.yaml)' : ''}`;

/** Sends `write` with dryRun=All; a refusal becomes "nothing was changed". */
const tryWrite = async (
  r: Run,
  step: string,
  write: (w: WriteOptions) => Promise<unknown>
) => {
  try {
    await write({ dryRun: true });
  } catch (e) {
    throw new Error(
      `${r.what}: the server refused to ${step} (dry run); nothing was changed: ${describeError(e)}`,
      { cause: e }
    );
  }
};

/** Tries every write of a migration with dryRun=All (step 1). */
const tryEveryWrite = async (r: Run, source: DaemonSet, object: DaemonSet) => {
  const { api, sourceKind, ns, name } = r;
  const src = `${resourceName(sourceKind)}/${name}`;
  const uid = source.metadata?.uid ?? '';
  await tryWrite(r, `create ${resourceName(r.target)}/${name}`, (w) =>
    api.create(r.target, ns, object, w)
  );
  if (source.metadata?.deletionTimestamp !== undefined) return;
  await tryWrite(r, `add a finalizer to ${src}`, (w) =>
    api.patchDaemonSet(
      sourceKind,
      ns,
      name,
      finalizerPatch(source, [...finalizersOf(source), MIGRATE_FINALIZER]),
      w
    )
  );
  await tryWrite(r, `delete ${src}`, (w) =>
    api.deleteOrphaning(sourceKind, ns, name, uid, w)
  );
  const owned = ownedBy(await api.dependents(ns, source.spec?.selector), uid);
  const [pod] = owned.pods;
  const [revision] = owned.revisions;
  if (pod) {
    await tryWrite(r, `release pod ${pod.metadata?.name}`, (w) =>
      api.release('pod', ns, pod, source, w)
    );
  }
  if (revision) {
    await tryWrite(r, `release revision ${revision.metadata?.name}`, (w) =>
      api.release('revision', ns, revision, source, w)
    );
  }
};

/** Saves the target object and the source's copy (step 2). */
const saveCopies = async (
  r: Run,
  source: DaemonSet,
  object: DaemonSet,
  save: MigrationOptions['save']
) => {
  const base = `${r.ns}.${r.name}`;
  const target = await save(
    `${base}.${r.target.resource}.json`,
    `${JSON.stringify(object, null, 2)}\n`
  );
  r.sourceFile = await save(
    `${base}.${r.sourceKind.resource}.json`,
    `${JSON.stringify(recreatableObject(source, r.sourceKind), null, 2)}\n`
  );
  return `saved ${resourceName(r.target)}/${r.name} to ${target}, and ${resourceName(r.sourceKind)}/${r.name} to ${r.sourceFile}`;
};

/** Adds the finalizer to the source and deletes it, orphaning (step 3). */
const retireSource = async (r: Run, source: DaemonSet) => {
  const { api, sourceKind, ns, name } = r;
  await api.patchDaemonSet(
    sourceKind,
    ns,
    name,
    finalizerPatch(source, [...finalizersOf(source), MIGRATE_FINALIZER])
  );
  try {
    await api.deleteOrphaning(sourceKind, ns, name, source.metadata?.uid ?? '');
  } catch (e) {
    await removeFinalizer(r);
    throw e;
  }
};

/**
 * Moves `name` from `sourceKind` to its target kind; returns what to print.
 * Throws, having changed nothing, when a kind is not served, the source is
 * missing, the target exists or the server refuses a write in the dry run;
 * resumes a run that stopped after the source was deleted.
 */
export const migrateDaemonSet = async (
  api: DaemonSetMigrationApi,
  sourceKind: DaemonSetKind,
  ns: string,
  name: string,
  o: MigrationOptions
): Promise<MigrationReport> => {
  const target = o.target ?? targetKindOf(sourceKind);
  const src = `${resourceName(sourceKind)}/${name}`;
  const r: Run = {
    api,
    sourceKind,
    target,
    ns,
    name,
    what: `${src} → ${resourceName(target)}/${name}`,
    timeoutMs: o.timeoutMs,
    now: o.now,
    sleep: o.sleep,
  };
  for (const k of [sourceKind, target]) {
    if (!(await api.serves(k))) {
      throw new Error(
        `the server doesn't have a resource type "${k.resource}" in ${k.group}/${k.version}: install the CRD ${crdOf(k)} first; nothing was changed`
      );
    }
  }
  const source = await api.find(sourceKind, ns, name);
  if (source === undefined) {
    throw new Error(`${resourceName(sourceKind)} "${name}" not found in ${ns}`);
  }
  const existing = await api.find(target, ns, name);
  const terminating = source.metadata?.deletionTimestamp !== undefined;
  const resuming =
    terminating && finalizersOf(source).includes(MIGRATE_FINALIZER);
  if (existing !== undefined && !resuming) {
    throw new Error(
      `${resourceName(target)} "${name}" already exists in ${ns}`
    );
  }
  if (terminating && !resuming) {
    throw new Error(`${src} is being deleted; nothing to migrate`);
  }
  const { object, dropped } = migratedObject(source, sourceKind, target);
  const lines = dropped.length
    ? [`warning: ${resourceName(target)} has no ${dropped.join(', ')}; dropped`]
    : [];
  if (o.dryRun === 'client') {
    return {
      lines: [
        ...lines,
        `${r.what} (dry run): would orphan its pods and revisions, then create:`,
        JSON.stringify(object, null, 2),
      ],
    };
  }
  if (existing === undefined) await tryEveryWrite(r, source, object);
  if (o.dryRun === 'server') {
    return {
      lines: [
        ...lines,
        `${r.what} (server dry run): the server accepts every write of the migration; nothing was changed`,
      ],
    };
  }
  if (resuming) {
    lines.push(`resuming: ${src} is terminating with ${MIGRATE_FINALIZER}`);
  } else {
    lines.push(await saveCopies(r, source, object, o.save));
    await retireSource(r, source);
  }
  return {
    lines: [...lines, ...(await handOver(r, source, object, existing))],
  };
};
