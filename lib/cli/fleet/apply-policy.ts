/**
 * `dsr fleet apply -f FILE [--dry-run]`: reads a FleetRolloutPolicy (YAML
 * or JSON), checks it (every problem by field path) and against the
 * stored policies, and stores it; the rollout keeps its state, controls
 * and history. Prints the wave plan over the registered clusters; with
 * `--dry-run` that is all it does.
 */
import { load } from 'js-yaml';
import {
  type FleetPolicy,
  InvalidFleetPolicyError,
  parseFleetPolicy,
} from '../../fleet/fleet-policy.js';
import type { FleetRolloutRecord } from '../../ports/index.js';
import { describeError } from '../describe-error.js';
import { failed, type Outcome } from '../render-output.js';
import { type FleetCliDeps, wakeRollout } from './fleet-cli-deps.js';
import type { FleetTableCommand } from './fleet-command.js';
import { FLEET_RESOURCE } from './fleet-rollout-view.js';
import { planWaves, wavePlanLines } from './wave-plan.js';

type ApplyCommand = Extract<FleetTableCommand, { verb: 'apply' }>;

/** What reading the file gave: the policy and its text, or the failure. */
type Read =
  | { policy: FleetPolicy; source: string; refused?: never }
  | { refused: Outcome };

/** Returns the policy the file holds, or why it holds none. */
const readPolicy = async (
  file: string,
  deps: Pick<FleetCliDeps, 'readTextFile'>
): Promise<Read> => {
  let source: string;
  try {
    source = await deps.readTextFile(file);
  } catch (e) {
    return { refused: failed(`cannot read ${file}: ${describeError(e)}`) };
  }
  let doc: unknown;
  try {
    // JSON is YAML: one parser reads both.
    doc = load(source);
  } catch (e) {
    const first = describeError(e).split('\n')[0] ?? '';
    return {
      refused: failed(
        first.includes('single document')
          ? `${file} holds more than one document: apply one policy per file`
          : `${file} is not YAML or JSON: ${first}`
      ),
    };
  }
  try {
    return { policy: parseFleetPolicy(doc), source };
  } catch (e) {
    if (!(e instanceof InvalidFleetPolicyError)) throw e;
    const error = `${file}: invalid fleet rollout policy`;
    return {
      refused: {
        exitCode: 1,
        lines: [`error: ${error}:`, ...e.problems.map((p) => `  ${p}`)],
        json: { error, problems: e.problems },
        error: true,
      },
    };
  }
};

/** Returns `kind namespace/name`. */
const targetOf = ({ target }: FleetPolicy): string =>
  `${target.kind} ${target.namespace}/${target.name}`;

/**
 * Returns why the stored policies refuse `policy`, or undefined: one
 * policy per DaemonSet (two would fight over its members' holds), and a
 * stored policy's target does not change (its state pins that
 * DaemonSet's revisions and its members hold it).
 */
const conflictOf = (
  policy: FleetPolicy,
  stored: readonly FleetRolloutRecord[]
): string | undefined => {
  const same = stored.find((r) => r.policy.name === policy.name);
  if (same !== undefined && targetOf(same.policy) !== targetOf(policy)) {
    return `${FLEET_RESOURCE} ${policy.name} targets ${targetOf(same.policy)}; its target cannot change: delete it, then apply the new one`;
  }
  const other = stored.find(
    (r) =>
      r.policy.name !== policy.name && targetOf(r.policy) === targetOf(policy)
  );
  return other === undefined
    ? undefined
    : `${FLEET_RESOURCE} ${other.policy.name} already targets ${targetOf(policy)}: one policy per DaemonSet`;
};

/** Runs `apply`. */
export const applyPolicy = async (
  command: ApplyCommand,
  deps: FleetCliDeps
): Promise<Outcome> => {
  const read = await readPolicy(command.file, deps);
  if (read.refused !== undefined) return read.refused;
  const { policy, source } = read;
  const stored = await deps.store.list();
  const conflict = conflictOf(policy, stored);
  if (conflict !== undefined) return failed(conflict);
  const listing = await deps.registry.list();
  const plan = planWaves(policy, listing);
  const exists = stored.some((r) => r.policy.name === policy.name);
  const result = exists ? 'configured' : 'created';
  const done: Outcome = {
    exitCode: 0,
    lines: [
      `${FLEET_RESOURCE}/${policy.name} ${result}${command.dryRun ? ' (dry run)' : ''}`,
      ...wavePlanLines(policy, plan, listing),
    ],
    json: {
      name: policy.name,
      result,
      dryRun: command.dryRun,
      ...plan,
      invalidRecords: listing.invalid,
    },
  };
  if (command.dryRun) return done;
  await deps.store.applyPolicy(policy, source, deps.clock.now());
  return wakeRollout(policy.name, deps, done, 'apply it again');
};
