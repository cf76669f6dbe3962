/**
 * `dsr fleet rollback NAME CLUSTER`: sets the template of the policy's
 * DaemonSet in one member cluster back to the stable revision the rollout
 * pinned for it, from the cluster's own ControllerRevision of it, as
 * `kubectl rollout undo` does. Member syncs never hold the stable
 * revision, so the cluster's pods roll back at its own pace.
 *
 * It runs with the operator's kubeconfig, as kubectl does (the reconciler's
 * own identity may not write templates). It checks first and writes once:
 * the policy pins a stable revision for the cluster, the context points at
 * the cluster's registered server (for a cluster registered with a
 * kubeconfig file, that file's server), the
 * DaemonSet exists and its history keeps that revision. The write tests
 * the resourceVersion it read, so a template changed meanwhile is left
 * alone. The history line goes after the write, and says so if it fails.
 */
import { ApiErrorReason, isApiError } from '../../errors.js';
import type { ClusterRecord, FleetRolloutRecord } from '../../ports/index.js';
import {
  ADVANCED_DAEMON_SET,
  type DaemonSetKind,
  NATIVE_DAEMON_SET,
} from '../../reconcile/k8s/daemon-set-kind.js';
import {
  match,
  revisionHash,
  revisionTemplate,
} from '../../reconcile/revision-hash.js';
import { describeError } from '../describe-error.js';
import { failed, type Outcome } from '../render-output.js';
import { type FleetCliDeps, wakeRollout } from './fleet-cli-deps.js';
import type { FleetTableCommand } from './fleet-command.js';
import { FLEET_RESOURCE, withStoredPolicy } from './fleet-rollout-view.js';

type RollbackCommand = Extract<FleetTableCommand, { verb: 'rollback' }>;

/** Where the operator's credentials for the cluster are. */
type MemberTarget = { kubeconfig?: string; context?: string };

/** Returns the kubeconfig and context given, else kubectl's defaults. */
const memberTargetOf = ({ kubeconfig, context }: RollbackCommand) => ({
  ...(kubeconfig === undefined ? {} : { kubeconfig }),
  ...(context === undefined ? {} : { context }),
});

/** Returns a server URL without a trailing slash, for comparing. */
const serverOf = (url: string): string => url.replace(/\/+$/, '');

/**
 * Returns the server a cluster is registered at: its endpoint, or for one
 * registered with a kubeconfig file, that file's server.
 */
const registeredServerOf = (
  record: ClusterRecord,
  open: NonNullable<FleetCliDeps['openMember']>
): string | undefined => {
  if (record.endpoint !== '' || record.auth.type !== 'kubeconfig') {
    return record.endpoint || undefined;
  }
  const { path, context } = record.auth;
  const member = open({
    kubeconfig: path,
    ...(context === undefined ? {} : { context }),
  });
  member.api.close();
  return member.server;
};

/** The member, once the record's checks pass: where and how to open it. */
interface Opening {
  stable: string;
  registered: ClusterRecord;
  registeredServer: string | undefined;
  target: MemberTarget;
  open: NonNullable<FleetCliDeps['openMember']>;
}

/** Checks the record and the registration, reading no cluster. */
const checkRecord = async (
  command: RollbackCommand,
  record: FleetRolloutRecord,
  deps: FleetCliDeps
): Promise<Opening | Outcome> => {
  const { name, cluster } = command;
  const { state } = record;
  const stable = state.stable[cluster];
  if (stable === undefined) {
    const pinned = Object.keys(state.stable).sort();
    return failed(
      `${FLEET_RESOURCE} ${name} has no stable revision pinned for cluster ${cluster} (pinned: ${pinned.join(', ') || 'none'})`
    );
  }
  const registered = (await deps.registry.list()).records.find(
    (r) => r.id === cluster
  );
  if (registered === undefined) {
    return failed(`cluster ${cluster} is not registered`);
  }
  if (deps.openMember === undefined) {
    return failed('rollback needs access to the member clusters');
  }
  return {
    stable,
    registered,
    registeredServer: registeredServerOf(registered, deps.openMember),
    target: memberTargetOf(command),
    open: deps.openMember,
  };
};

/**
 * Checks the cluster and writes its template back; returns the outcome
 * when there is nothing to write, or undefined once written.
 */
const writeBack = async (
  command: RollbackCommand,
  record: FleetRolloutRecord,
  { stable, registeredServer }: Opening,
  { api, server }: ReturnType<Opening['open']>
): Promise<Outcome | undefined> => {
  const { name, cluster } = command;
  if (
    registeredServer !== undefined &&
    server !== undefined &&
    serverOf(server) !== serverOf(registeredServer)
  ) {
    return failed(
      `the context points at ${server}, but cluster ${cluster} is registered at ${registeredServer}: name the context of ${cluster} with --context`
    );
  }
  const { target: t } = record.policy;
  const kind: DaemonSetKind =
    t.kind === 'AdvancedDaemonSet' ? ADVANCED_DAEMON_SET : NATIVE_DAEMON_SET;
  const what = `${kind.resource}.${kind.group} ${t.namespace}/${t.name}`;
  const ds = await api.find(kind, t.namespace, t.name);
  if (ds === undefined) {
    return failed(`${what} not found in cluster ${cluster}`);
  }
  const revisions = await api.revisions(ds);
  const revision = revisions.find((r) => revisionHash(r) === stable);
  const template = revision && revisionTemplate(revision);
  if (revision === undefined || template === undefined) {
    const kept = revisions.map(revisionHash).join(', ');
    return failed(
      `cluster ${cluster} keeps no ControllerRevision of the stable revision ${stable} of ${what} (it keeps: ${kept || 'none'}); set its template back by hand`
    );
  }
  if (match(ds, revision)) {
    const message = `${FLEET_RESOURCE}/${name} cluster ${cluster} already has the template of the stable revision ${stable}`;
    return {
      exitCode: 0,
      lines: [message],
      json: { name, cluster, revision: stable, changed: false, message },
    };
  }
  try {
    await api.replaceTemplateAt(
      kind,
      t.namespace,
      t.name,
      template,
      ds.metadata?.resourceVersion ?? '',
      { dryRun: command.dryRun }
    );
  } catch (e) {
    if (!isApiError(e, ApiErrorReason.Invalid)) throw e;
    return failed(
      `the DaemonSet in cluster ${cluster} changed while it was read; nothing was written: run rollback again`
    );
  }
  return undefined;
};

/** Checks, writes the template back, then records it. */
const rollBack = async (
  command: RollbackCommand,
  record: FleetRolloutRecord,
  deps: FleetCliDeps
): Promise<Outcome> => {
  const opening = await checkRecord(command, record, deps);
  if ('exitCode' in opening) return opening;
  const member = opening.open(opening.target);
  try {
    const refused = await writeBack(command, record, opening, member);
    if (refused !== undefined) return refused;
  } finally {
    member.api.close();
  }
  return recordRollback(command, opening.stable, deps);
};

/** Says what was done, and writes it to the rollout's history. */
const recordRollback = async (
  command: RollbackCommand,
  stable: string,
  deps: FleetCliDeps
): Promise<Outcome> => {
  const { name, cluster } = command;
  const message = `${FLEET_RESOURCE}/${name} cluster ${cluster} rolled back to the stable revision ${stable}${command.dryRun ? ' (server dry run)' : ''}`;
  const done: Outcome = {
    exitCode: 0,
    lines: [message],
    json: { name, cluster, revision: stable, changed: true, message },
  };
  if (command.dryRun) return done;
  const nowMs = deps.clock.now();
  try {
    await deps.store.setControls(
      name,
      {},
      `${cluster}: template rolled back to the stable revision ${stable} (dsr fleet rollback)`,
      nowMs
    );
  } catch (e) {
    return failed(
      `cluster ${cluster} is rolled back to ${stable}, but its history line was not written (${describeError(e)})`
    );
  }
  return wakeRollout(name, deps, done, 'run rollback again');
};

/** Runs `rollback`. */
export const rollbackMember = (
  command: RollbackCommand,
  deps: FleetCliDeps
): Promise<Outcome> =>
  withStoredPolicy(command.name, deps.store, (record) =>
    rollBack(command, record, deps)
  );
