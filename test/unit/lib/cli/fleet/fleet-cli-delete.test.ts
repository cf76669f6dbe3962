import { beforeEach, describe, expect, it } from 'vitest';
import { MemoryFleetRolloutStore } from '#lib/adapters/memory/memory-fleet-rollout-store.js';
import {
  type FleetRolloutState,
  idleFleetRollout,
} from '#lib/fleet/fleet-rollout-state.js';
import type { FleetMemberRecord } from '#lib/ports/index.js';
import {
  canaryBaking,
  createFleetCliBed,
  type FleetCliBed,
  T0,
} from '#test/helpers/fleet-cli-bed.js';

/** The memory store, recording its writes; `failDeletePolicy` makes it throw. */
class RecordingFleetStore extends MemoryFleetRolloutStore {
  readonly writes: string[] = [];
  failDeletePolicy = false;

  override async removeMembers(keys: readonly string[]): Promise<void> {
    this.writes.push(`removeMembers ${keys.join(' ')}`);
    await super.removeMembers(keys);
  }

  override async deletePolicy(name: string): Promise<void> {
    this.writes.push(`deletePolicy ${name}`);
    if (this.failDeletePolicy) throw new Error('throttled');
    await super.deletePolicy(name);
  }
}

/** Returns a member of node-agent's target in `cluster`, held by `policy`. */
const member = (
  cluster: string,
  policy = 'node-agent'
): Omit<FleetMemberRecord, 'observation'> => ({
  key: `${cluster}/kube-system/node-agent`,
  policy,
  decision: { stable: 'rev-1', target: 'rev-2', partition: '100%' },
  health: { maxRestartsPerPod: 3, failOnWaitingReasons: [] },
});

describe('dsr fleet delete', () => {
  let store: RecordingFleetStore;
  let bed: FleetCliBed;

  /** Stores node-agent with `state` and members in every covered cluster. */
  const prepare = async (state: FleetRolloutState) => {
    await bed.applyExample();
    await bed.store.saveState('node-agent', state, [], T0);
    await store.putDecisions(
      ['prod-eu-1', 'prod-eu-2', 'prod-us-1'].map((c) => member(c))
    );
  };
  const memberKeys = async () =>
    [
      ...(
        await store.getMembers(
          ['gone-1', 'prod-eu-1', 'prod-eu-2', 'prod-us-1', 'stage-eu-1'].map(
            (c) => `${c}/kube-system/node-agent`
          )
        )
      ).keys(),
    ].sort();

  beforeEach(() => {
    store = new RecordingFleetStore();
    bed = createFleetCliBed(store);
  });

  it('refuses a policy that does not exist', async () => {
    // Act
    const out = await bed.run('delete', 'ghost');

    // Assess
    expect(out).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'error: fleetrolloutpolicy ghost not found\n',
    });
    expect(store.writes).toEqual([]);
  });

  it.each(['Progressing', 'Paused', 'Halted', 'Aborted'] as const)(
    'refuses a rollout that is %s, saying --force releases the holds',
    async (phase) => {
      // Prepare
      await prepare({ ...canaryBaking(), phase });

      // Act
      const out = await bed.run('delete', 'node-agent');

      // Assess
      expect(out.exitCode).toBe(1);
      expect(out.stderr).toBe(
        `error: fleetrolloutpolicy node-agent is ${phase}: deleting it releases the hold on every member cluster, which then rolls kube-system/node-agent at once; wait until it is Done, or give --force to release the holds\n`
      );
      expect(store.writes).toEqual([]);
      expect(await bed.store.get('node-agent')).toBeDefined();
      expect(await memberKeys()).toHaveLength(3);
    }
  );

  it.each([
    { phase: 'Idle', state: idleFleetRollout() },
    { phase: 'Done', state: { ...canaryBaking(), phase: 'Done' as const } },
  ])('deletes a rollout that is $phase without --force', async ({ state }) => {
    // Prepare
    await prepare(state);

    // Act
    const out = await bed.run('delete', 'node-agent');

    // Assess
    expect(out).toEqual({
      exitCode: 0,
      stdout:
        'fleetrolloutpolicy/node-agent deleted (3 member holds released)\n',
      stderr: '',
    });
    expect(await bed.store.get('node-agent')).toBeUndefined();
    expect(await memberKeys()).toEqual([]);
  });

  it('with --force, releases the members first and deletes the policy last', async () => {
    // Prepare: a cluster the state names that is no longer registered.
    await prepare({
      ...canaryBaking(),
      stable: { ...canaryBaking().stable, 'gone-1': 'rev-1' },
    });
    await store.putDecisions([member('gone-1')]);
    store.writes.length = 0;

    // Act
    const out = await bed.run('delete', 'node-agent', '--force', '-o', 'json');

    // Assess
    expect(out.exitCode).toBe(0);
    const keys = [
      'gone-1/kube-system/node-agent',
      'prod-eu-1/kube-system/node-agent',
      'prod-eu-2/kube-system/node-agent',
      'prod-us-1/kube-system/node-agent',
    ];
    expect(JSON.parse(out.stdout)).toEqual({
      name: 'node-agent',
      deleted: true,
      releasedMembers: keys,
    });
    expect(store.writes).toEqual([
      `removeMembers ${keys.join(' ')}`,
      'deletePolicy node-agent',
    ]);
    expect(await memberKeys()).toEqual([]);
  });

  it("leaves another policy's member of the same DaemonSet", async () => {
    // Prepare
    await prepare(idleFleetRollout());
    await store.putDecisions([member('stage-eu-1', 'other-policy')]);

    // Act
    await bed.run('delete', 'node-agent');

    // Assess
    expect(await memberKeys()).toEqual(['stage-eu-1/kube-system/node-agent']);
  });

  it('leaves the policy when deleting it fails, and a retry finishes', async () => {
    // Prepare
    await prepare(canaryBaking());
    store.failDeletePolicy = true;

    // Act
    const failed = await bed.run('delete', 'node-agent', '--force');

    // Assess
    expect(failed).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'error: throttled\n',
    });
    expect(await memberKeys()).toEqual([]);
    expect(await bed.store.get('node-agent')).toBeDefined();

    // Act: the retry.
    store.failDeletePolicy = false;
    const retried = await bed.run('delete', 'node-agent', '--force');

    // Assess
    expect(retried.stdout).toBe(
      'fleetrolloutpolicy/node-agent deleted (0 member holds released)\n'
    );
    expect(await bed.store.get('node-agent')).toBeUndefined();
  });
});
