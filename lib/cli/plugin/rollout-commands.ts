/**
 * The rollout verbs of `kubectl dsr` (status, history, undo, pause, resume,
 * restart) and `set partition`, each as kubectl does it for built-in kinds.
 */
import type { AdvancedDaemonSets } from '../../ports/index.js';
import { isDaemonSetPaused } from '../../reconcile/advanced/rollout-controls.js';
import { rfc3339 } from '../../reconcile/k8s/meta.js';
import type {
  ControllerRevision,
  DaemonSet,
} from '../../reconcile/k8s/types.js';
import { match, revisionTemplate } from '../../reconcile/revision-hash.js';
import { RESOURCE, sendWrite } from './dry-run.js';
import type { PluginCommand } from './parse-plugin-args.js';
import type { PluginDeps } from './plugin-deps.js';
import { type RolloutStatus, rolloutStatus } from './rollout-status.js';

export { RESOURCE };

/** How often `rollout status` looks again while it waits. */
const STATUS_POLL_MS = 1_000;

export type Cmd = Exclude<
  PluginCommand,
  | { verb: 'help' }
  | { verb: 'version' }
  | { verb: 'completion' }
  | { verb: 'image' }
  | { verb: 'get' }
  | { verb: 'migrate' }
  | { verb: 'plan' }
  | { verb: 'explain' }
>;

const revisionOf = (r: ControllerRevision): number => Number(r.revision ?? 0);

/** What status and history read of one kind's objects. */
export interface RolloutObjects {
  /** How kubectl names the kind in messages (`daemonset.apps`). */
  resource: string;
  get: AdvancedDaemonSets['get'];
  revisions: AdvancedDaemonSets['revisions'];
  statusOf(ds: DaemonSet): RolloutStatus;
}

/** The own kind's objects, as status and history read them. */
const ownKind = (api: AdvancedDaemonSets): RolloutObjects => ({
  resource: RESOURCE,
  get: (ns, name) => api.get(ns, name),
  revisions: (ds) => api.revisions(ds),
  statusOf: rolloutStatus,
});

/** `rollout status`: one look, or (watch) every change until done. */
export const status = async (
  c: Cmd,
  objects: RolloutObjects,
  ns: string,
  deps: PluginDeps
): Promise<string> => {
  const deadline = c.timeoutMs ? deps.now() + c.timeoutMs : Infinity;
  let last = '';
  for (;;) {
    const { message, done } = objects.statusOf(await objects.get(ns, c.name));
    if (!c.watch) return message;
    if (message !== last) deps.write(message);
    last = message;
    if (done) return '';
    if (deps.now() >= deadline) {
      throw new Error('timed out waiting for the condition');
    }
    await deps.sleep(STATUS_POLL_MS);
  }
};

/** `rollout history`: the revisions, or one revision's template. */
export const history = async (c: Cmd, objects: RolloutObjects, ns: string) => {
  const { resource } = objects;
  const ds = await objects.get(ns, c.name);
  const revisions = (await objects.revisions(ds)).sort(
    (a, b) => revisionOf(a) - revisionOf(b)
  );
  if (c.revision !== undefined) {
    const r = revisions.find((x) => revisionOf(x) === c.revision);
    if (r === undefined) {
      throw new Error(`unable to find the specified revision`);
    }
    const shown = revisionTemplate(r);
    return `${resource}/${c.name} with revision #${c.revision}\nPod Template:\n${JSON.stringify(shown, null, 2)}\n`;
  }
  const rows = revisions.map(
    (r) =>
      `${String(revisionOf(r)).padEnd(10)}${r.metadata?.annotations?.['kubernetes.io/change-cause'] ?? '<none>'}`
  );
  return `${resource}/${c.name} \n${['REVISION  CHANGE-CAUSE', ...rows].join('\n')}\n\n`;
};

const undo = async (c: Cmd, api: AdvancedDaemonSets, ns: string) => {
  const ds = await api.get(ns, c.name);
  const revisions = (await api.revisions(ds)).sort(
    (a, b) => revisionOf(b) - revisionOf(a)
  );
  const target =
    c.revision === undefined || c.revision === 0
      ? revisions.find((r) => !match(ds, r))
      : revisions.find((r) => revisionOf(r) === c.revision);
  if (target === undefined) {
    throw new Error(
      c.revision
        ? `unable to find specified revision ${c.revision} in history`
        : 'no rollout history found'
    );
  }
  if (match(ds, target)) {
    return `${RESOURCE}/${c.name} skipped rollback (current template already matches revision ${revisionOf(target)})\n`;
  }
  const template = revisionTemplate(target);
  return sendWrite(
    c,
    'rolled back',
    [{ op: 'replace', path: '/spec/template', value: template }],
    (o) => api.replaceTemplate(ns, c.name, template, o)
  );
};

const setPaused = async (
  c: Cmd,
  api: AdvancedDaemonSets,
  ns: string,
  paused: boolean
) => {
  const ds = await api.get(ns, c.name);
  if (isDaemonSetPaused(ds) === paused) {
    throw new Error(
      `${RESOURCE} "${c.name}" is ${paused ? 'already paused' : 'not paused'}`
    );
  }
  const patch = { spec: { updateStrategy: { rollingUpdate: { paused } } } };
  return sendWrite(c, paused ? 'paused' : 'resumed', patch, (o) =>
    api.patch(ns, c.name, patch, o)
  );
};

const restart = async (
  c: Cmd,
  api: AdvancedDaemonSets,
  ns: string,
  deps: PluginDeps
) => {
  const ds = await api.get(ns, c.name);
  if (isDaemonSetPaused(ds)) {
    throw new Error(
      `can't restart paused ${RESOURCE} (run rollout resume first)`
    );
  }
  const at = rfc3339(deps.now());
  const patch = {
    spec: {
      template: {
        metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': at } },
      },
    },
  };
  return sendWrite(c, 'restarted', patch, (o) =>
    api.patch(ns, c.name, patch, o)
  );
};

const setPartition = async (c: Cmd, api: AdvancedDaemonSets, ns: string) => {
  const value = c.value ?? '0';
  const partition = value.endsWith('%') ? value : Number(value);
  const patch = { spec: { updateStrategy: { rollingUpdate: { partition } } } };
  // A client dry run sends nothing, so it reads: a missing object is NotFound.
  if (c.dryRun === 'client') await api.get(ns, c.name);
  return sendWrite(c, `partition set to ${value}`, patch, (o) =>
    api.patch(ns, c.name, patch, o)
  );
};

/** Runs one rollout or set command; returns what to print. */
export const runRolloutCommand = (
  c: Cmd,
  api: AdvancedDaemonSets,
  ns: string,
  deps: PluginDeps
) => {
  switch (c.verb) {
    case 'status':
      return status(c, ownKind(api), ns, deps);
    case 'history':
      return history(c, ownKind(api), ns);
    case 'undo':
      return undo(c, api, ns);
    case 'pause':
      return setPaused(c, api, ns, true);
    case 'resume':
      return setPaused(c, api, ns, false);
    case 'restart':
      return restart(c, api, ns, deps);
    case 'partition':
      return setPartition(c, api, ns);
  }
};
