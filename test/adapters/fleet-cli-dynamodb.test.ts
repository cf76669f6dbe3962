/**
 * `dsr fleet` as the bundled command composes it (functions/fleet.ts), on
 * DynamoDB Local: apply a policy over registered clusters, steer its
 * rollout, read it back, and delete it with its members, every write
 * going through the DynamoDB adapters the deployed functions use.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { DynamoClusterRegistry } from '#lib/adapters/dynamodb/dynamo-cluster-registry.js';
import { DynamoFleetRolloutStore } from '#lib/adapters/dynamodb/dynamo-fleet-rollout-store.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { createTestTable, type TestTable } from '#test/helpers/dynamo-table.js';
import {
  canaryBaking,
  EXAMPLE_FLEET,
  NODE_AGENT_YAML,
} from '#test/helpers/fleet-cli-bed.js';
import { runFleet } from '../../functions/fleet.js';

let table: TestTable;
let dir: string;
let file: string;
let store: DynamoFleetRolloutStore;

/** Runs `dsr fleet ARGV… --table T --endpoint E` as the command does. */
const fleet = (...argv: string[]) =>
  runFleet([
    ...argv,
    '--table',
    table.tableName,
    '--endpoint',
    inject('dynamodbEndpoint'),
    '--region',
    'us-east-1',
  ]);

beforeAll(async () => {
  vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
  vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
  table = await createTestTable(inject('dynamodbEndpoint'));
  const registry = new DynamoClusterRegistry({
    ...table,
    clock: systemClock,
    cacheTtlMs: 0,
  });
  for (const record of EXAMPLE_FLEET) await registry.put(record);
  store = new DynamoFleetRolloutStore({ ...table, clock: systemClock });
  dir = mkdtempSync(path.join(os.tmpdir(), 'dsr-fleet-'));
  file = path.join(dir, 'node-agent.yaml');
  writeFileSync(file, NODE_AGENT_YAML);
});

afterAll(() => {
  vi.unstubAllEnvs();
  table.client.destroy();
  rmSync(dir, { recursive: true, force: true });
});

describe('dsr fleet on DynamoDB Local', () => {
  it('applies a policy and prints its waves over the registry', async () => {
    // Act
    const out = await fleet('apply', '-f', file);

    // Assess
    expect(out.stderr).toBe('');
    expect(out.stdout).toBe(
      [
        'fleetrolloutpolicy/node-agent created',
        'wave canary (1 cluster): prod-eu-1',
        'wave rest (1 cluster, manual approval): prod-eu-2',
        'in no wave (held on their stable revision): prod-us-1',
        '',
      ].join('\n')
    );
    expect((await store.get('node-agent'))?.source).toBe(NODE_AGENT_YAML);
  });

  it('steers the rollout under way and reads it back', async () => {
    // Prepare
    await store.saveState(
      'node-agent',
      { ...canaryBaking(), startedAtMs: Date.now() - 60_000 },
      ['rollout started: prod-eu-1 shows revision rev-2'],
      Date.now()
    );

    // Act
    const paused = await fleet('pause', 'node-agent');
    const approved = await fleet('approve', 'node-agent', 'rest');
    const status = await fleet('status', 'node-agent', '-o', 'json');
    const list = await fleet('list');
    const history = await fleet('history', 'node-agent');

    // Assess
    expect(paused.stdout).toBe('fleetrolloutpolicy/node-agent paused\n');
    expect(approved.stdout).toBe(
      'fleetrolloutpolicy/node-agent wave rest approved\n'
    );
    const doc = JSON.parse(status.stdout);
    expect(doc.pending).toBe('pausing');
    expect(doc.waves[1].approval).toMatch(/^approved /);
    expect(list.stdout).toContain(
      'node-agent   ds/kube-system/node-agent   Progressing (pausing)'
    );
    expect(history.stdout.split('\n').map((l) => l.slice(22))).toEqual([
      'rollout started: prod-eu-1 shows revision rev-2',
      'paused (dsr fleet pause)',
      'wave rest approved (dsr fleet approve)',
      '',
    ]);
  });

  it('refuses to delete it under way, and deletes it with its members on --force', async () => {
    // Prepare
    await store.putDecisions(
      ['prod-eu-1', 'prod-eu-2'].map((c) => ({
        key: `${c}/kube-system/node-agent`,
        policy: 'node-agent',
        decision: { stable: 'rev-1', target: 'rev-2', partition: '100%' },
        health: { maxRestartsPerPod: 3, failOnWaitingReasons: [] },
      }))
    );

    // Act
    const refused = await fleet('delete', 'node-agent');
    const deleted = await fleet('delete', 'node-agent', '--force');
    const gone = await fleet('status', 'node-agent');

    // Assess
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('give --force to release the holds');
    expect(deleted.stdout).toBe(
      'fleetrolloutpolicy/node-agent deleted (2 member holds released)\n'
    );
    expect(await store.getMember('prod-eu-1/kube-system/node-agent')).toBe(
      undefined
    );
    expect(gone.stderr).toBe(
      'error: fleetrolloutpolicy node-agent not found\n'
    );
  });
});
