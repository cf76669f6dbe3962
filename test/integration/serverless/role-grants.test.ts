/**
 * Each function's role covers the calls its code makes. The serverless stack
 * runs with every function on SDK endpoints of its own, a recording proxy in
 * front of DynamoDB Local and one in front of fauxqs, through a DaemonSet's
 * create and a rollout under a fleet rollout policy; every recorded call
 * is then checked against that function's role in the packaged template
 * (role-grants.ts), as IAM would.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoFleetRolloutStore } from '#lib/adapters/dynamodb/dynamo-fleet-rollout-store.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { CountingProxy } from '../../bench/counting-proxy.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import { testFleetPolicy } from '../../helpers/fleet-policies.js';
import { createAgentDaemonSet } from '../../testbed/kube-fixtures.js';
import {
  type CfnTemplate,
  packageTemplate,
} from '../../unit/infra/package-template.js';
import {
  failPod,
  isConverged,
  livePodsOf,
  setAgentImage,
} from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { keyPrefix, notAllowed, permissionsOf } from './role-grants.js';
import { type Endpoints, eventually } from './stack.js';

/** Each function the stack runs, and the roles its code runs under. */
const ROLES = {
  'bridge-dispatch': ['BridgeDispatchRole'],
  // The stack runs both bridge modes in one handler; both roles must cover it.
  'watch-bridge': ['WatchBridgeRole', 'EconomyBridgeRole'],
  reconcile: ['ReconcileRole'],
  requeue: ['RequeueRole'],
} as const;
type Fn = keyof typeof ROLES;
const FUNCTIONS = Object.keys(ROLES) as Fn[];

describe('the functions’ roles', () => {
  let s: E2eScenario;
  let t: CfnTemplate = { Resources: {} };
  let outDir = '';
  const proxies = new Map<
    Fn,
    { dynamodb: CountingProxy; sqs: CountingProxy }
  >();
  reportLogOnFailure(() => s?.stack?.logger);

  const endpointsOf = (fn: Fn): Endpoints => {
    const p = proxies.get(fn);
    if (!p) throw new Error(`no proxies for ${fn}`);
    return { dynamodb: p.dynamodb.endpoint, sqs: p.sqs.endpoint };
  };
  const permissionsOfFn = (fn: Fn) => {
    const queues = {
      [s.stack.queues.work.url]: 'WorkQueue',
      [s.stack.queues.delay.url]: 'DelayQueue',
    };
    const p = proxies.get(fn);
    return [...(p?.dynamodb.calls ?? []), ...(p?.sqs.calls ?? [])].flatMap(
      (c) => permissionsOf(c, queues)
    );
  };

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'dsr-grants-'));
    const packaged = packageTemplate(outDir);
    for (const fn of FUNCTIONS) {
      proxies.set(fn, {
        dynamodb: await CountingProxy.start(inject('dynamodbEndpoint')),
        sqs: await CountingProxy.start(inject('sqsEndpoint')),
      });
    }
    s = await E2eScenario.start('sls-grants', {
      nodes: 3,
      stack: {
        host: (newWiring) => ({
          host: (name, makeHandler) =>
            makeHandler(newWiring(undefined, endpointsOf(name))),
        }),
        dispatchEndpoints: endpointsOf('bridge-dispatch'),
      },
    });
    // Act: a create whose pods count as available only after a timer (the
    // requeue function), a failed pod (its backoff), a rollout, then the
    // bridge's checkpoint and release.
    await createAgentDaemonSet(s.admin, s.ns, s.selector, 'agent:1', {
      minReadySeconds: 2,
    });
    await eventually(
      'convergence',
      () => isConverged(s.admin, s.ns, s.nodes),
      60_000
    );
    const [failed] = await livePodsOf(s.admin, s.ns, 'agent');
    await failPod(s.admin, s.ns, failed?.metadata?.name ?? '');
    await eventually(
      'the failed pod replaced',
      async () =>
        !(await livePodsOf(s.admin, s.ns, 'agent')).some(
          (p) => p.metadata?.uid === failed?.metadata?.uid
        ) && isConverged(s.admin, s.ns, s.nodes),
      60_000
    );
    // The rollout runs under a fleet rollout policy, as `dsr fleet apply`
    // stores it: the dispatcher wakes it, the fleet sync pins and releases
    // the member, the member's syncs read its hold and report.
    const fleet = new DynamoFleetRolloutStore({
      client: s.stack.table.client,
      tableName: s.stack.table.tableName,
      clock: systemClock,
    });
    await fleet.applyPolicy(
      testFleetPolicy('agent', {
        target: { namespace: s.ns, name: 'agent' },
        clusters: { ids: [s.stack.cluster] },
        waves: [{ name: 'all', clusters: { ids: [s.stack.cluster] } }],
      }),
      'test',
      systemClock.now()
    );
    await eventually(
      'the member pinned',
      async () =>
        (await fleet.get('agent'))?.state.stable[s.stack.cluster] !== undefined,
      60_000
    );
    await setAgentImage(s.admin, s.ns, 'agent:2');
    await eventually(
      'the rollout',
      async () =>
        (await isConverged(s.admin, s.ns, s.nodes, 'agent:2')) &&
        (await fleet.get('agent'))?.state.phase === 'Done',
      90_000
    );
    await s.stack.stopBridge();
    t = await packaged;
  }, 300_000);

  afterAll(async () => {
    await s?.close();
    for (const p of proxies.values()) {
      await p.dynamodb.close();
      await p.sqs.close();
    }
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it.each(FUNCTIONS)('allow every call %s made', (fn) => {
    // Act
    const needed = permissionsOfFn(fn);
    const prefixes = [
      ...new Set(needed.flatMap((p) => p.leadingKeys.map(keyPrefix))),
    ].sort();
    console.info(
      `${fn}: ${needed.length} permissions checked; ` +
        `${[...new Set(needed.map((p) => p.action))].sort().join(' ')}; ` +
        `key prefixes ${prefixes.join(' ')}`
    );
    // Assess
    expect(needed.length).toBeGreaterThan(0);
    for (const role of ROLES[fn]) {
      expect(notAllowed(t, role, needed), role).toEqual([]);
    }
  });

  it('would refuse the dispatcher a delete of a lease item, as IAM does', () => {
    // Act
    const refused = notAllowed(
      t,
      'BridgeDispatchRole',
      permissionsOf(
        { action: 'DeleteItem', input: { Key: { pk: { S: 'lease#c1' } } } },
        {}
      )
    );
    // Assess
    expect(refused).toEqual(['dynamodb:DeleteItem StateTable lease#']);
  });
});
