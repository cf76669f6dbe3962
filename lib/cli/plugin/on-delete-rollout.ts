/**
 * `kubectl dsr rollout status|history|pause|resume ds/NAME` for an apps/v1
 * OnDelete DaemonSet the OnDelete mode rolls out (kubectl's own `rollout
 * status` refuses OnDelete). Status reads what the cluster's controller
 * writes, judged against the annotation's controls; pause and resume write
 * only the `apps.dsr.dev/rollout-paused` annotation, never the controls
 * GitOps applies.
 */
import { ApiErrorReason, KubeApiError } from '../../errors.js';
import type { DaemonSetMigrationApi } from '../../ports/index.js';
import { isControlledBy } from '../../reconcile/k8s/controller-ref.js';
import { NATIVE_DAEMON_SET } from '../../reconcile/k8s/daemon-set-kind.js';
import type { DaemonSet } from '../../reconcile/k8s/types.js';
import {
  asRollingUpdate,
  PAUSED_ANNOTATION,
  ROLLOUT_ANNOTATION,
  readOnDeleteOptIn,
} from '../../reconcile/on-delete/rollout-annotation.js';
import { sendWrite } from './dry-run.js';
import type { PluginDeps } from './plugin-deps.js';
import {
  type Cmd,
  history,
  type RolloutObjects,
  status,
} from './rollout-commands.js';
import { type RolloutStatus, rolloutStatus } from './rollout-status.js';

/** How kubectl names apps/v1 DaemonSets in messages. */
export const NATIVE_RESOURCE = 'daemonset.apps';

/** Returns the controls of an opted-in DaemonSet; throws kubectl-style otherwise. */
const controlsOf = (ds: DaemonSet) => {
  const name = ds.metadata?.name ?? '';
  const optIn = readOnDeleteOptIn(ds);
  if (!optIn.optedIn) {
    throw new Error(
      `daemon set "${name}" has no ${ROLLOUT_ANNOTATION} annotation, so the product does not roll it out (kubectl rollout status ds/${name} watches a RollingUpdate DaemonSet)`
    );
  }
  if ('problems' in optIn) {
    throw new Error(
      `daemon set "${name}" has an invalid ${ROLLOUT_ANNOTATION} annotation: ${optIn.problems.join('; ')}`
    );
  }
  return optIn.controls;
};

/** Returns the rollout's status line, read against the annotation's controls. */
export const onDeleteRolloutStatus = (ds: DaemonSet): RolloutStatus =>
  rolloutStatus(asRollingUpdate(ds, controlsOf(ds)));

/** apps/v1 DaemonSets as status and history read them. */
const nativeObjects = (
  api: DaemonSetMigrationApi,
  ns: string
): RolloutObjects => ({
  resource: NATIVE_RESOURCE,
  get: async (namespace, name) => {
    const ds = await api.find(NATIVE_DAEMON_SET, namespace, name);
    if (ds !== undefined) return ds;
    throw new KubeApiError(`daemonsets.apps "${name}" not found`, {
      reason: ApiErrorReason.NotFound,
      statusCode: 404,
    });
  },
  revisions: async (ds) =>
    (await api.dependents(ns, ds.spec?.selector)).revisions.filter((r) =>
      isControlledBy(r, ds)
    ),
  statusOf: onDeleteRolloutStatus,
});

const setPaused = async (
  c: Cmd,
  api: DaemonSetMigrationApi,
  objects: RolloutObjects,
  ns: string,
  paused: boolean
): Promise<string> => {
  const ds = await objects.get(ns, c.name);
  const controls = controlsOf(ds);
  if (
    !paused &&
    controls.paused &&
    ds.metadata?.annotations?.[PAUSED_ANNOTATION] !== 'true'
  ) {
    throw new Error(
      `daemon set "${c.name}" is paused by its ${ROLLOUT_ANNOTATION} controls ("paused": true): change them where GitOps applies them`
    );
  }
  if (controls.paused === paused) {
    throw new Error(
      `${NATIVE_RESOURCE} "${c.name}" is ${paused ? 'already paused' : 'not paused'}`
    );
  }
  const patch = {
    metadata: { annotations: { [PAUSED_ANNOTATION]: paused ? 'true' : null } },
  };
  return sendWrite(
    c,
    paused ? 'paused' : 'resumed',
    patch,
    (o) => api.patchDaemonSet(NATIVE_DAEMON_SET, ns, c.name, patch, o),
    NATIVE_RESOURCE
  );
};

/** Runs one rollout verb on an apps/v1 OnDelete DaemonSet; returns what to print. */
export const runOnDeleteRolloutCommand = (
  c: Cmd,
  api: DaemonSetMigrationApi,
  ns: string,
  deps: PluginDeps
): Promise<string> => {
  const objects = nativeObjects(api, ns);
  switch (c.verb) {
    case 'status':
      return status(c, objects, ns, deps);
    case 'history':
      return history(c, objects, ns);
    case 'pause':
      return setPaused(c, api, objects, ns, true);
    case 'resume':
      return setPaused(c, api, objects, ns, false);
    default:
      // The parser lets only these four verbs take ds/NAME.
      throw new Error(`rollout ${c.verb} does not take ds/${c.name}`);
  }
};
