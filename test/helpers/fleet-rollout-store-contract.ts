/**
 * The contract every FleetRolloutStore keeps (memory and DynamoDB): records
 * that keep their state across a re-applied policy, history stamped and
 * capped, controls merged, writers that never overwrite one another's
 * attributes, and members whose decisions and observations are written
 * apart.
 */
import { expect, it } from 'vitest';
import type { FleetPolicy } from '#lib/fleet/fleet-policy.js';
import {
  type FleetRolloutState,
  idleFleetRollout,
  type MemberObservation,
} from '#lib/fleet/fleet-rollout-state.js';
import {
  FLEET_HISTORY_LIMIT,
  type FleetMemberRecord,
  type FleetRolloutStore,
} from '#lib/ports/fleet-rollouts.js';
import { testFleetPolicy } from './fleet-policies.js';

/** Returns a valid policy named `name`, its waves named as given. */
export const fleetPolicy = (
  name: string,
  waves: readonly string[] = ['canary', 'rest-of-fleet']
): FleetPolicy =>
  testFleetPolicy(name, {
    clusters: { selector: { matchLabels: { fleet: 'yes' } } },
    waves: waves.map((wave) => ({
      name: wave,
      clusters: { ids: [`${wave}-1`] },
      nodeSteps: [{ partition: '50%', bake: '5m' }, { partition: 0 }],
    })),
  });

/** A rollout under way, as the fleet sync would save it. */
const progressing = (atMs: number): FleetRolloutState => ({
  ...idleFleetRollout(),
  phase: 'Progressing',
  stable: { c1: 'aaa' },
  target: { c1: 'bbb' },
  startedAtMs: atMs,
  clusters: { c1: { phase: 'Progressing', step: 0, stepStartedAtMs: atMs } },
});

/** Returns the member of `key` under policy `policy`. */
export const fleetMember = (
  key: string,
  policy = 'agent'
): Omit<FleetMemberRecord, 'observation'> => ({
  key,
  policy,
  decision: { stable: 'aaa', target: 'bbb', partition: '50%' },
  health: { maxRestartsPerPod: 3, failOnWaitingReasons: ['CrashLoopBackOff'] },
});

const observation = (atMs: number): MemberObservation => ({
  observedAtMs: atMs,
  reachable: true,
  revision: 'bbb',
  desired: 10,
  updatedAvailable: 5,
  failedNodes: 0,
  excludedNodes: 1,
});

const T0 = 1_700_000_000_000;

/**
 * Registers the contract's tests for stores made by `newStore` (each call
 * a store holding nothing); `manyMembers` members are read at once.
 */
export const fleetRolloutStoreContract = (
  newStore: () => Promise<FleetRolloutStore>,
  { manyMembers }: { manyMembers: number }
): void => {
  it('reads back an applied policy with idle state, default controls and no history', async () => {
    // Prepare
    const store = await newStore();
    const policy = fleetPolicy('agent');
    // Act
    await store.applyPolicy(policy, 'kind: FleetRolloutPolicy\n', T0);
    const record = await store.get('agent');
    // Assess
    expect(record).toEqual({
      policy,
      source: 'kind: FleetRolloutPolicy\n',
      appliedAtMs: T0,
      state: idleFleetRollout(),
      controls: { paused: false, approvedAtMs: {} },
      history: [],
    });
  });

  it('reads an unknown policy as absent', async () => {
    // Prepare
    const store = await newStore();
    // Act
    const record = await store.get('nobody');
    // Assess
    expect(record).toBeUndefined();
  });

  it('replaces policy and source on a re-apply, keeping state, controls and history', async () => {
    // Prepare
    const store = await newStore();
    await store.applyPolicy(fleetPolicy('agent'), 'v1', T0);
    await store.saveState('agent', progressing(T0), ['started'], T0 + 1);
    await store.setControls('agent', { paused: true }, 'paused', T0 + 2);
    const changed = fleetPolicy('agent', ['canary', 'early', 'rest']);
    // Act
    await store.applyPolicy(changed, 'v2', T0 + 3);
    const record = await store.get('agent');
    // Assess
    expect(record).toEqual({
      policy: changed,
      source: 'v2',
      appliedAtMs: T0 + 3,
      state: progressing(T0),
      controls: { paused: true, approvedAtMs: {} },
      history: [
        { atMs: T0 + 1, note: 'started' },
        { atMs: T0 + 2, note: 'paused' },
      ],
    });
  });

  it('saves state and appends its notes stamped, leaving policy and controls', async () => {
    // Prepare
    const store = await newStore();
    const policy = fleetPolicy('agent');
    await store.applyPolicy(policy, 'v1', T0);
    // Act
    await store.saveState('agent', progressing(T0), ['a', 'b'], T0 + 5);
    await store.saveState('agent', progressing(T0), [], T0 + 6);
    const record = await store.get('agent');
    // Assess
    expect(record).toMatchObject({
      policy,
      state: progressing(T0),
      controls: { paused: false, approvedAtMs: {} },
      history: [
        { atMs: T0 + 5, note: 'a' },
        { atMs: T0 + 5, note: 'b' },
      ],
    });
  });

  it('keeps the newest FLEET_HISTORY_LIMIT history entries, dropping the oldest', async () => {
    // Prepare
    const store = await newStore();
    await store.applyPolicy(fleetPolicy('agent'), 'v1', T0);
    const batch = (from: number) =>
      Array.from({ length: 30 }, (_, i) => `note ${from + i}`);
    // Act: 120 notes in four saves, then a control's note
    for (let i = 0; i < 4; i++) {
      await store.saveState('agent', idleFleetRollout(), batch(i * 30), T0 + i);
    }
    await store.setControls('agent', { paused: true }, 'paused', T0 + 9);
    const history = (await store.get('agent'))?.history ?? [];
    // Assess
    expect(history).toHaveLength(FLEET_HISTORY_LIMIT);
    expect(history[0]).toEqual({ atMs: T0, note: 'note 21' });
    expect(history.at(-2)).toEqual({ atMs: T0 + 3, note: 'note 119' });
    expect(history.at(-1)).toEqual({ atMs: T0 + 9, note: 'paused' });
  });

  it('keeps the last FLEET_HISTORY_LIMIT notes of one save that brings more', async () => {
    // Prepare
    const store = await newStore();
    await store.applyPolicy(fleetPolicy('agent'), 'v1', T0);
    await store.saveState('agent', idleFleetRollout(), ['first'], T0);
    const notes = Array.from(
      { length: FLEET_HISTORY_LIMIT + 7 },
      (_, i) => `n${i}`
    );
    // Act
    await store.saveState('agent', idleFleetRollout(), notes, T0 + 1);
    const history = (await store.get('agent'))?.history ?? [];
    // Assess
    expect(history.map((h) => h.note)).toEqual(notes.slice(7));
  });

  it('saves no state for a policy deleted meanwhile', async () => {
    // Prepare
    const store = await newStore();
    await store.applyPolicy(fleetPolicy('agent'), 'v1', T0);
    await store.deletePolicy('agent');
    // Act
    await store.saveState('agent', progressing(T0), ['started'], T0 + 1);
    // Assess
    expect(await store.get('agent')).toBeUndefined();
    expect(await store.list()).toEqual([]);
  });

  it('merges controls: flags replace, approvals add up wave by wave', async () => {
    // Prepare
    const store = await newStore();
    await store.applyPolicy(fleetPolicy('agent'), 'v1', T0);
    // Act
    const answers = [
      await store.setControls('agent', { paused: true }, 'paused', T0 + 1),
      await store.setControls(
        'agent',
        { approvedAtMs: { canary: T0 + 2 } },
        'approved canary',
        T0 + 2
      ),
      await store.setControls(
        'agent',
        { paused: false, approvedAtMs: { 'rest-of-fleet': T0 + 3 } },
        'resumed, approved rest-of-fleet',
        T0 + 3
      ),
      await store.setControls(
        'agent',
        { abortedAtMs: T0 + 4 },
        'aborted',
        T0 + 4
      ),
    ];
    const record = await store.get('agent');
    // Assess
    expect(answers).toEqual([true, true, true, true]);
    expect(record?.controls).toEqual({
      paused: false,
      abortedAtMs: T0 + 4,
      approvedAtMs: { canary: T0 + 2, 'rest-of-fleet': T0 + 3 },
    });
    expect(record?.history.map((h) => h.note)).toEqual([
      'paused',
      'approved canary',
      'resumed, approved rest-of-fleet',
      'aborted',
    ]);
  });

  it('answers false to controls for an unknown policy, creating nothing', async () => {
    // Prepare
    const store = await newStore();
    // Act
    const answer = await store.setControls(
      'nobody',
      { paused: true },
      'paused',
      T0
    );
    // Assess
    expect(answer).toBe(false);
    expect(await store.get('nobody')).toBeUndefined();
    expect(await store.list()).toEqual([]);
  });

  it('keeps both the fleet sync’s state and the operator’s controls when they write at once', async () => {
    // Prepare
    const store = await newStore();
    await store.applyPolicy(fleetPolicy('agent'), 'v1', T0);
    // Act
    await Promise.all([
      store.saveState('agent', progressing(T0), ['started'], T0 + 1),
      store.setControls(
        'agent',
        { paused: true, approvedAtMs: { canary: T0 + 1 } },
        'paused',
        T0 + 1
      ),
    ]);
    const record = await store.get('agent');
    // Assess
    expect(record?.state).toEqual(progressing(T0));
    expect(record?.controls).toEqual({
      paused: true,
      approvedAtMs: { canary: T0 + 1 },
    });
    expect(record?.history.map((h) => h.note).sort()).toEqual([
      'paused',
      'started',
    ]);
  });

  it('lists every record, by policy name', async () => {
    // Prepare
    const store = await newStore();
    for (const name of ['web', 'agent', 'logs']) {
      await store.applyPolicy(fleetPolicy(name), name, T0);
    }
    // Act
    const records = await store.list();
    // Assess
    expect(records.map((r) => [r.policy.name, r.source])).toEqual([
      ['agent', 'agent'],
      ['logs', 'logs'],
      ['web', 'web'],
    ]);
  });

  it('deletes a policy, and ignores deleting an unknown one', async () => {
    // Prepare
    const store = await newStore();
    await store.applyPolicy(fleetPolicy('agent'), 'v1', T0);
    await store.applyPolicy(fleetPolicy('web'), 'v1', T0);
    // Act
    await store.deletePolicy('agent');
    await store.deletePolicy('nobody');
    // Assess
    expect(await store.get('agent')).toBeUndefined();
    expect((await store.list()).map((r) => r.policy.name)).toEqual(['web']);
  });

  it('hands out copies: changing what was read or written leaves the store as it was', async () => {
    // Prepare
    const store = await newStore();
    const policy = fleetPolicy('agent');
    await store.applyPolicy(policy, 'v1', T0);
    const member = fleetMember('c1/kube-system/agent');
    await store.putDecisions([member]);
    // Act
    policy.waves.pop();
    member.decision.partition = 0;
    const read = await store.get('agent');
    if (read) {
      read.controls.approvedAtMs.canary = 1;
      read.history.push({ atMs: 1, note: 'x' });
    }
    const readMember = await store.getMember('c1/kube-system/agent');
    if (readMember) readMember.health.failOnWaitingReasons.push('x');
    // Assess
    expect(await store.get('agent')).toMatchObject({
      policy: fleetPolicy('agent'),
      controls: { approvedAtMs: {} },
      history: [],
    });
    expect(await store.getMember('c1/kube-system/agent')).toEqual(
      fleetMember('c1/kube-system/agent')
    );
  });

  it('creates members with their decisions, and keeps an observation when a decision changes', async () => {
    // Prepare
    const store = await newStore();
    const key = 'c1/kube-system/agent';
    await store.putDecisions([fleetMember(key)]);
    const created = await store.getMember(key);
    await store.report(key, observation(T0));
    const next = {
      ...fleetMember(key),
      decision: { stable: 'aaa', target: 'bbb', partition: 0 },
    };
    // Act
    await store.putDecisions([next, fleetMember('c2/kube-system/agent')]);
    // Assess
    expect(created).toEqual(fleetMember(key));
    expect(await store.getMember(key)).toEqual({
      ...next,
      observation: observation(T0),
    });
    expect(await store.getMember('c2/kube-system/agent')).toEqual(
      fleetMember('c2/kube-system/agent')
    );
  });

  it('writes a report onto its member, replacing the last one', async () => {
    // Prepare
    const store = await newStore();
    const key = 'c1/kube-system/agent';
    await store.putDecisions([fleetMember(key)]);
    await store.report(key, observation(T0));
    // Act
    await store.report(key, { ...observation(T0 + 1), reachable: false });
    // Assess
    expect(await store.getMember(key)).toEqual({
      ...fleetMember(key),
      observation: { ...observation(T0 + 1), reachable: false },
    });
  });

  it('leaves a member no fleet rollout covers absent when it reports', async () => {
    // Prepare
    const store = await newStore();
    const key = 'c9/kube-system/agent';
    // Act
    await store.report(key, observation(T0));
    // Assess
    expect(await store.getMember(key)).toBeUndefined();
    expect((await store.getMembers([key])).size).toBe(0);
  });

  it('reads many members at once, only those that exist', async () => {
    // Prepare
    const store = await newStore();
    const keys = Array.from(
      { length: manyMembers },
      (_, i) => `c${i}/kube-system/agent`
    );
    const stored = keys.filter((_, i) => i % 3 !== 0);
    await store.putDecisions(stored.map((key) => fleetMember(key)));
    // Act
    const members = await store.getMembers([...keys, stored[0] as string]);
    // Assess
    expect([...members.keys()].sort()).toEqual([...stored].sort());
    expect(members.get(stored[0] as string)).toEqual(
      fleetMember(stored[0] as string)
    );
  });

  it('reads no members for no keys', async () => {
    // Prepare
    const store = await newStore();
    // Act
    const members = await store.getMembers([]);
    // Assess
    expect(members.size).toBe(0);
  });

  it('removes the members named, and ignores unknown ones', async () => {
    // Prepare
    const store = await newStore();
    const keys = ['c1/ns/a', 'c2/ns/a', 'c3/ns/a'];
    await store.putDecisions(keys.map((key) => fleetMember(key)));
    // Act
    await store.removeMembers(['c1/ns/a', 'c3/ns/a', 'c9/ns/a']);
    // Assess
    expect([...(await store.getMembers(keys)).keys()]).toEqual(['c2/ns/a']);
    expect(await store.getMember('c1/ns/a')).toBeUndefined();
  });
};
