/**
 * `dsr fleet list`: every policy in one line (NAME, TARGET, PHASE, the
 * WAVE under way, CLUSTERS done of those in a wave, FAILED clusters, AGE
 * since it was last applied); and `dsr fleet history NAME`.
 */
import { isStampedForRollout, isUnderWay } from '../../fleet/fleet-controls.js';
import type { FleetWave } from '../../fleet/fleet-policy.js';
import type { ClusterListing, FleetRolloutRecord } from '../../ports/index.js';
import { humanDuration, kubectlColumns } from '../daemon-set-table.js';
import type { Outcome } from '../render-output.js';
import {
  formatTime,
  pendingControl,
  shownPhase,
  wavesOf,
} from './fleet-rollout-view.js';

/** One policy's row, as `-o json|yaml` shows it. */
interface RolloutRow {
  name: string;
  target: string;
  phase: string;
  pending?: string;
  /** The wave under way, and what it waits for (`approval`, `baking`). */
  wave?: string;
  done: number;
  clusters: number;
  failed: number;
  appliedAt: string;
}

/**
 * Returns the first wave not yet done and baked, with what it waits for;
 * undefined when no rollout is under way or every wave is through.
 */
const waveUnderWay = (
  record: FleetRolloutRecord,
  waves: readonly { name: string; clusters: string[] }[],
  nowMs: number
): string | undefined => {
  const { state, controls, policy } = record;
  if (!isUnderWay(state)) return undefined;
  for (const [i, members] of waves.entries()) {
    const wave = policy.waves[i] as FleetWave;
    const doneAt = state.waveDoneAtMs[wave.name];
    if (doneAt === undefined) {
      const waiting =
        wave.manualApproval &&
        !isStampedForRollout(controls.approvedAtMs[wave.name], state) &&
        members.clusters.some((c) => state.target[c] !== undefined);
      return waiting ? `${wave.name} (approval)` : wave.name;
    }
    if (nowMs < doneAt + wave.bakeMs) return `${wave.name} (baking)`;
  }
  return undefined;
};

/** Returns a policy's row. */
const rowOf = (
  record: FleetRolloutRecord,
  listing: ClusterListing,
  nowMs: number
): RolloutRow => {
  const { policy, state } = record;
  const { waves } = wavesOf(record, listing);
  const inWaves = waves.flatMap((w) => w.clusters);
  const wave = waveUnderWay(record, waves, nowMs);
  const pending = pendingControl(record);
  const { kind, namespace, name } = policy.target;
  return {
    name: policy.name,
    target: `${kind === 'DaemonSet' ? 'ds' : 'advds'}/${namespace}/${name}`,
    phase: state.phase,
    ...(pending === undefined ? {} : { pending }),
    ...(wave === undefined ? {} : { wave }),
    done: inWaves.filter((c) => state.clusters[c]?.phase === 'Done').length,
    clusters: inWaves.length,
    failed: Object.values(state.clusters).filter((c) => c.phase === 'Failed')
      .length,
    appliedAt: formatTime(record.appliedAtMs),
  };
};

/** Returns the outcome of `list`. */
export const listRollouts = (
  records: readonly FleetRolloutRecord[],
  listing: ClusterListing,
  nowMs: number
): Outcome => {
  const rows = records.map((r) => rowOf(r, listing, nowMs));
  return {
    exitCode: 0,
    lines:
      records.length === 0
        ? ['no fleet rollout policies']
        : kubectlColumns([
            ['NAME', 'TARGET', 'PHASE', 'WAVE', 'CLUSTERS', 'FAILED', 'AGE'],
            ...records.map((record, i) => {
              const row = rows[i] as RolloutRow;
              return [
                row.name,
                row.target,
                shownPhase(record),
                row.wave ?? '-',
                `${row.done}/${row.clusters}`,
                String(row.failed),
                humanDuration(nowMs - record.appliedAtMs),
              ];
            }),
          ]),
    json: { rollouts: rows },
  };
};

/** Returns the outcome of `history`: one line per entry, oldest first. */
export const rolloutHistory = (record: FleetRolloutRecord): Outcome => ({
  exitCode: 0,
  lines:
    record.history.length === 0
      ? [`no history for ${record.policy.name} yet`]
      : record.history.map((h) => `${formatTime(h.atMs)}  ${h.note}`),
  json: {
    name: record.policy.name,
    history: record.history.map((h) => ({
      at: formatTime(h.atMs),
      note: h.note,
    })),
  },
});
