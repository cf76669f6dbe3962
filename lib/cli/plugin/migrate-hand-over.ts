/**
 * The hand-over of `kubectl dsr migrate` (steps 4–6 of
 * migrate-daemon-set.ts): release the terminating source's pods and
 * revisions, create the target, wait until its controller has adopted them,
 * then let the source go. A failed create or release recreates the source,
 * so the pods always end up controlled by a live object.
 */
import { ApiErrorReason, isApiError } from '../../errors.js';
import type { DaemonSetMigrationApi, Dependents } from '../../ports/index.js';
import type { DaemonSetKind } from '../../reconcile/k8s/daemon-set-kind.js';
import type { DaemonSet, KubeObject } from '../../reconcile/k8s/types.js';
import { describeError } from '../describe-error.js';
import { recreatableObject, resourceName } from './migrate.js';

/** Keeps a migrating source present until the target has adopted its pods. */
export const MIGRATE_FINALIZER = 'apps.dsr.dev/migrate';

/** How often the hand-over is checked while it is waited for. */
const POLL_MS = 250;

/** How often a finalizer patch is retried after a conflict. */
const FINALIZER_RETRIES = 5;

/** One migration run. */
export interface Run {
  api: DaemonSetMigrationApi;
  sourceKind: DaemonSetKind;
  target: DaemonSetKind;
  ns: string;
  name: string;
  /** `SOURCE/NAME → TARGET/NAME`, for messages. */
  what: string;
  timeoutMs: number;
  now(): number;
  sleep(ms: number): Promise<void>;
  /** Where the source's copy was saved, for messages. */
  sourceFile?: string;
}

const hasController = (o: KubeObject) =>
  (o.metadata?.ownerReferences ?? []).some((r) => r.controller === true);

const controlledBy = (uid: string) => (o: KubeObject) =>
  (o.metadata?.ownerReferences ?? []).some(
    (r) => r.controller === true && r.uid === uid
  );

/** Returns the dependents controlled by `uid`. */
export const ownedBy = (d: Dependents, uid: string): Dependents => ({
  pods: d.pods.filter(controlledBy(uid)),
  revisions: d.revisions.filter(controlledBy(uid)),
});

/** Returns the finalizers of `ds`. */
export const finalizersOf = (ds: DaemonSet): string[] =>
  ds.metadata?.finalizers ?? [];

/** Returns a merge patch setting the finalizers, guarded by resourceVersion. */
export const finalizerPatch = (ds: DaemonSet, finalizers: string[]) => ({
  metadata: { resourceVersion: ds.metadata?.resourceVersion, finalizers },
});

/** Removes MIGRATE_FINALIZER from the source, if it is still there. */
export const removeFinalizer = async (r: Run): Promise<void> => {
  for (let attempt = 1; ; attempt++) {
    const ds = await r.api.find(r.sourceKind, r.ns, r.name);
    if (ds === undefined || !finalizersOf(ds).includes(MIGRATE_FINALIZER)) {
      return;
    }
    const kept = finalizersOf(ds).filter((f) => f !== MIGRATE_FINALIZER);
    try {
      await r.api.patchDaemonSet(
        r.sourceKind,
        r.ns,
        r.name,
        finalizerPatch(ds, kept)
      );
      return;
    } catch (e) {
      // The garbage collector drops its own finalizer meanwhile: read again.
      if (
        !isApiError(e, ApiErrorReason.Conflict) ||
        attempt >= FINALIZER_RETRIES
      )
        throw e;
    }
  }
};

/** Waits until `done` holds, or throws `timedOut()` at the deadline. */
const waitUntil = async (
  r: Run,
  deadline: number,
  done: () => Promise<boolean>,
  timedOut: () => Error
): Promise<void> => {
  for (;;) {
    if (await done()) return;
    if (r.now() >= deadline) throw timedOut();
    await r.sleep(POLL_MS);
  }
};

/**
 * Releases every pod and revision the source controls (step 4). The source
 * is terminating, so its controller creates and adopts nothing meanwhile.
 */
const releaseAll = async (r: Run, source: DaemonSet) => {
  const owned = ownedBy(
    await r.api.dependents(r.ns, source.spec?.selector),
    source.metadata?.uid ?? ''
  );
  const goneAlready = (e: unknown) => {
    if (!isApiError(e, ApiErrorReason.NotFound)) throw e;
  };
  await Promise.all([
    ...owned.pods.map((p) =>
      r.api.release('pod', r.ns, p, source).catch(goneAlready)
    ),
    ...owned.revisions.map((v) =>
      r.api.release('revision', r.ns, v, source).catch(goneAlready)
    ),
  ]);
};

/**
 * Recreates the source after a failed create or release, and throws what
 * failed: the new source's controller adopts the orphans back.
 */
const restoreSource = async (
  r: Run,
  source: DaemonSet,
  cause: unknown
): Promise<never> => {
  const src = `${resourceName(r.sourceKind)}/${r.name}`;
  const failed = `${r.what} failed: ${describeError(cause)}`;
  try {
    await removeFinalizer(r);
    await waitUntil(
      r,
      r.now() + r.timeoutMs,
      async () => (await r.api.find(r.sourceKind, r.ns, r.name)) === undefined,
      () => new Error(`timed out waiting for the terminating ${src} to go`)
    );
    await r.api.create(
      r.sourceKind,
      r.ns,
      recreatableObject(source, r.sourceKind)
    );
  } catch (e) {
    const copy = r.sourceFile
      ? `; its copy is in ${r.sourceFile}: once ${src} is gone, run kubectl create -f ${r.sourceFile}`
      : '';
    throw new Error(
      `${failed}; recreating ${src} failed too: ${describeError(e)}${copy}`,
      { cause }
    );
  }
  throw new Error(
    `${failed}; ${src} was recreated and its controller adopts the pods back`,
    { cause }
  );
};

/**
 * Hands the source's pods over to the target (steps 4–6) and returns what to
 * print; `existing` is a target an earlier run created.
 */
export const handOver = async (
  r: Run,
  source: DaemonSet,
  object: DaemonSet,
  existing: DaemonSet | undefined
): Promise<string[]> => {
  const deadline = r.now() + r.timeoutMs;
  if (existing === undefined) {
    try {
      await releaseAll(r, source);
      await r.api.create(r.target, r.ns, object);
    } catch (e) {
      return restoreSource(r, source, e);
    }
  }
  let left = { pods: 0, revisions: 0 };
  await waitUntil(
    r,
    deadline,
    async () => {
      const d = await r.api.dependents(r.ns, source.spec?.selector);
      const orphan = (o: KubeObject) =>
        o.metadata?.deletionTimestamp === undefined && !hasController(o);
      left = {
        pods: d.pods.filter(orphan).length,
        revisions: d.revisions.filter(orphan).length,
      };
      return left.pods + left.revisions === 0;
    },
    () =>
      new Error(
        `${r.what}: created, but its controller has not yet adopted ${left.pods} pod(s) and ${left.revisions} revision(s); ${resourceName(r.sourceKind)}/${r.name} stays, terminating, until it has: run the migration again to finish`
      )
  );
  await removeFinalizer(r);
  return [`${r.what} migrated (pods and revisions adopted by the target)`];
};
