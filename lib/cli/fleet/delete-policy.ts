/**
 * `dsr fleet delete NAME [--force]`: deletes a policy and releases the
 * holds it puts on its members. A rollout under way (or halted, paused,
 * aborted) is refused unless `--force`: released members roll at once.
 * The members go first and the policy last, so a failure in between
 * leaves the policy, and deleting again finishes the work.
 */
import { isUnderWay } from '../../fleet/fleet-controls.js';
import { formatDaemonSetKey } from '../../keys.js';
import type { FleetRolloutRecord } from '../../ports/index.js';
import { failed, type Outcome } from '../render-output.js';
import type { FleetCliDeps } from './fleet-cli-deps.js';
import type { FleetTableCommand } from './fleet-command.js';
import { FLEET_RESOURCE, withStoredPolicy } from './fleet-rollout-view.js';

type DeleteCommand = Extract<FleetTableCommand, { verb: 'delete' }>;

/**
 * Returns the member keys the policy may hold: its target in every
 * registered cluster and in every cluster its state names (one since
 * deregistered still has its member item).
 */
const candidateKeys = (
  record: FleetRolloutRecord,
  registered: readonly string[]
): string[] => {
  const { state, policy } = record;
  const clusters = new Set([
    ...registered,
    ...Object.keys(state.clusters),
    ...Object.keys(state.stable),
    ...Object.keys(state.target),
  ]);
  return [...clusters].sort().map((cluster) =>
    formatDaemonSetKey({
      cluster,
      namespace: policy.target.namespace,
      name: policy.target.name,
    })
  );
};

/** Deletes the stored record and releases its members, checks first. */
const deleteStoredPolicy = async (
  command: DeleteCommand,
  record: FleetRolloutRecord,
  deps: FleetCliDeps
): Promise<Outcome> => {
  const { name } = command;
  if (isUnderWay(record.state) && !command.force) {
    return failed(
      `${FLEET_RESOURCE} ${name} is ${record.state.phase}: deleting it releases the hold on every member cluster, which then rolls ${record.policy.target.namespace}/${record.policy.target.name} at once; wait until it is Done, or give --force to release the holds`
    );
  }
  const { records } = await deps.registry.list();
  const keys = candidateKeys(
    record,
    records.map((r) => r.id)
  );
  // Only this policy's members: another policy's hold is not this one's to release.
  const members = [...(await deps.store.getMembers(keys)).values()]
    .filter((m) => m.policy === name)
    .map((m) => m.key);
  await deps.store.removeMembers(members);
  await deps.store.deletePolicy(name);
  return {
    exitCode: 0,
    lines: [
      `${FLEET_RESOURCE}/${name} deleted (${members.length} member hold${members.length === 1 ? '' : 's'} released)`,
    ],
    json: { name, deleted: true, releasedMembers: members },
  };
};

/** Runs `delete`. */
export const deletePolicy = (
  command: DeleteCommand,
  deps: FleetCliDeps
): Promise<Outcome> =>
  withStoredPolicy(command.name, deps.store, (record) =>
    deleteStoredPolicy(command, record, deps)
  );
