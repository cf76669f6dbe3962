/**
 * Creates and deletes daemon pods for a plan, as upstream `syncNodes`
 * (pkg/controller/daemon/daemon_controller.go): expectations set before any
 * call, at most a burst of each (upstream's BURST_REPLICAS, or the own kind's
 * burstReplicas), creates in slow-start batches, failed calls lowering
 * expectations, errors aggregated.
 */
import {
  ApiErrorReason,
  hasNamespaceTerminatingCause,
  isApiError,
  mayHaveBeenApplied,
  toError,
} from '../errors.js';
import { laterResourceVersion } from '../policy/resource-version.js';
import {
  readinessGatesFor,
  withReadinessGates,
} from '../reconcile/advanced/pod-readiness.js';
import { planPreparingDelete } from '../reconcile/advanced/pre-delete.js';
import { getBurstReplicas } from '../reconcile/advanced/rollout-controls.js';
import { rfc3339 } from '../reconcile/k8s/meta.js';
import { getTemplateGeneration } from '../reconcile/k8s/pod-util.js';
import type { PodTemplateSpec } from '../reconcile/k8s/types.js';
import { createPodTemplate, newDaemonPod } from '../reconcile/pod-template.js';
import {
  firstSlowStartBatch,
  nextSlowStartProof,
  type SlowStartRound,
  slowStartBatchSizes,
} from '../reconcile/slow-start.js';
import type { PodSource, SyncContext } from './context.js';
import {
  lowerOrDropNext,
  setExpectationsOrUndo,
} from './settle-expectations.js';

/** What one `syncNodes` call did. */
export interface SyncNodesResult {
  created: number;
  deleted: number;
}

/** What the creates of one `syncNodes` call did. */
interface Creates {
  created: number;
  /** The newest resourceVersion among the created pods. */
  newest?: string;
}

const createPods = async (
  ctx: SyncContext,
  nodeNames: readonly string[],
  hash: string,
  errors: Error[],
  source: PodSource | undefined
): Promise<Creates> => {
  const { ds, deps, key } = ctx;
  const namespace = ctx.dsKey.namespace;
  const current = withReadinessGates(
    createPodTemplate(
      ds.spec?.template as PodTemplateSpec,
      getTemplateGeneration(ds),
      hash
    ),
    readinessGatesFor(ds)
  );
  // A pod of an older revision carries no template generation: upstream
  // counts a pod whose generation matches the DaemonSet's as updated.
  const older =
    source === undefined
      ? current
      : withReadinessGates(
          createPodTemplate(source.template, undefined, source.hash),
          readinessGatesFor(ds)
        );
  const fromCurrent = source?.fromCurrent ?? Number.POSITIVE_INFINITY;
  const templateAt = (i: number) => (i < fromCurrent ? current : older);
  let pos = 0;
  let created = 0;
  let newest: string | undefined;
  let lostAnswers = false;
  const first = firstSlowStartBatch(
    deps.slowStart?.recall(key),
    deps.clock.now()
  );
  const rounds: SlowStartRound[] = [];
  for (const batch of slowStartBatchSizes(nodeNames.length, first)) {
    const errorCount = errors.length;
    const results = await Promise.allSettled(
      nodeNames
        .slice(pos, pos + batch)
        .map((node, i) =>
          deps.podControl.createPod(
            namespace,
            newDaemonPod(templateAt(pos + i), ds, node),
            ds
          )
        )
    );
    for (const r of results) {
      if (r.status === 'fulfilled') {
        created++;
        if (r.value !== undefined) {
          newest = laterResourceVersion(newest, r.value);
        }
      } else if (!hasNamespaceTerminatingCause(r.reason)) {
        // A namespace being torn down fails every create; upstream leaves
        // those expectations to time out.
        await lowerOrDropNext(ctx, () =>
          deps.expectations.creationObserved(key)
        );
        errors.push(toError(r.reason));
        lostAnswers ||= mayHaveBeenApplied(r.reason);
      }
    }
    pos += batch;
    rounds.push({
      size: batch,
      failed: results.some((r) => r.status === 'rejected'),
    });
    const skipped = nodeNames.length - pos;
    if (errors.length > errorCount && skipped > 0) {
      deps.logger.info('slow-start failure, skipping creation of pods', {
        skipped,
      });
      await lowerOrDropNext(ctx, () =>
        deps.expectations.lowerExpectations(key, skipped, 0)
      );
      break;
    }
  }
  // Upstream lowers the expectation of a failed create and trusts its
  // informer to show the pod if it was made after all; a cache here may
  // not, and the next sync would create a second pod on the node (a POST
  // that committed with its answer cut).
  if (lostAnswers) await deps.readLatestNext?.();
  if (rounds.length > 0) {
    deps.slowStart?.remember(key, nextSlowStartProof(rounds, deps.clock.now()));
  }
  return newest === undefined ? { created } : { created, newest };
};

/**
 * Read-your-writes: the key's next sync must see these pods. Expectations
 * usually see to it (the bridge notes an ADDED event's version before it
 * lowers them), but a pods 410 drops them, and a sync whose creates commit
 * after the bridge's resume point would leave the next sync, finding no
 * expectations, free to read a cache that lacks them — and create again.
 */
const noteCreated = async (
  ctx: SyncContext,
  creates: Creates,
  errors: Error[]
): Promise<void> => {
  if (creates.newest === undefined || ctx.deps.noteOwnPods === undefined) {
    return;
  }
  try {
    await ctx.deps.noteOwnPods(creates.newest);
  } catch (e) {
    errors.push(toError(e));
  }
};

const deletePods = async (
  ctx: SyncContext,
  podNames: readonly string[],
  errors: Error[]
): Promise<number> => {
  const { ds, deps, key } = ctx;
  const results = await Promise.allSettled(
    podNames.map((name) =>
      deps.podControl.deletePod(ctx.dsKey.namespace, name, ds)
    )
  );
  let deleted = 0;
  for (const r of results) {
    if (r.status === 'fulfilled') {
      deleted++;
      continue;
    }
    await lowerOrDropNext(ctx, () => deps.expectations.deletionObserved(key));
    if (!isApiError(r.reason, ApiErrorReason.NotFound)) {
      errors.push(toError(r.reason));
    }
  }
  return deleted;
};

/**
 * Returns the deletes the own kind's preDelete hook lets through, after
 * marking the pods it holds PreparingDelete (Kruise
 * `syncWithPreparingDelete`); failed marks join `errors`.
 */
const gatePreDelete = async (
  ctx: SyncContext,
  podsToDelete: readonly string[],
  errors: Error[]
): Promise<readonly string[]> => {
  const hook = ctx.ds.spec?.lifecycle?.preDelete;
  const plan = planPreparingDelete(
    hook,
    ctx.read.pods,
    podsToDelete,
    rfc3339(ctx.deps.clock.now())
  );
  const ns = ctx.dsKey.namespace;
  // Out of service first, as Kruise: a pod held by the hook stops serving
  // before anything else happens to it.
  const notReady = await Promise.allSettled(
    plan.podsToMarkNotReady.map((m) =>
      ctx.deps.podControl.patchPodStatus(ns, m.name, {
        type: 'strategic',
        body: m.patch,
      })
    )
  );
  const marks = await Promise.allSettled(
    plan.podsToMark.map((m) =>
      ctx.deps.podControl.patchPod(ns, m.name, {
        type: 'strategic',
        body: m.patch,
      })
    )
  );
  for (const m of [...notReady, ...marks]) {
    if (m.status === 'rejected') errors.push(toError(m.reason));
  }
  return plan.podsToDelete;
};

/** The pods one `syncNodes` call acts on. */
export interface PodChanges {
  podsToDelete: readonly string[];
  nodesNeedingDaemonPods: readonly string[];
  /** Nodes that should run a daemon pod; scales a percentage burst. */
  desiredNumberScheduled: number;
}

/**
 * Creates pods on `nodesNeedingDaemonPods` (from `source` when given, else
 * the current template) and deletes `podsToDelete`; throws an
 * AggregateError of every failed call.
 */
export const syncNodes = async (
  ctx: SyncContext,
  changes: PodChanges,
  hash: string,
  source?: PodSource
): Promise<SyncNodesResult> => {
  const errors: Error[] = [];
  const podsToDelete = await gatePreDelete(ctx, changes.podsToDelete, errors);
  const burst = getBurstReplicas(ctx.ds, changes.desiredNumberScheduled);
  const toCreate = changes.nodesNeedingDaemonPods.slice(0, burst);
  const toDelete = podsToDelete.slice(0, burst);
  await setExpectationsOrUndo(ctx, toCreate.length, toDelete.length);
  const creates = await createPods(ctx, toCreate, hash, errors, source);
  await noteCreated(ctx, creates, errors);
  const deleted = await deletePods(ctx, toDelete, errors);
  if (errors.length > 0) {
    throw new AggregateError(
      errors,
      `syncing pods of DaemonSet ${ctx.key}: ${errors.map((e) => e.message).join('; ')}`
    );
  }
  return { created: creates.created, deleted };
};
