/**
 * runBridgeTurn after a credential rotation: a run refused 401 forgets the
 * container's cached credential, connects again and runs once more; a
 * second refusal fails the run instead of looping.
 */
import { describe, expect, it } from 'vitest';
import { MemoryBridgeLeaseStore } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import { MemoryExpectationsStore } from '#lib/adapters/memory/memory-expectations-store.js';
import { MemoryNodeIndexStore } from '#lib/adapters/memory/memory-node-index-store.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import { runBridgeTurn } from '#lib/bridge/bridge-invocation.js';
import { ApiErrorReason, KubeApiError } from '#lib/errors.js';
import type {
  ClusterConnection,
  ClusterRecord,
  ClusterWatch,
} from '#lib/ports/index.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';
import { MemoryClusterRegistry } from '../../../helpers/fakes/memory-cluster-registry.js';
import { selfSignedPem } from '../../../helpers/self-signed-pem.js';

const SECRET = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:dsr/prod';
const CA = Buffer.from(selfSignedPem()).toString('base64');

const record = (bridgeMode: ClusterRecord['bridgeMode']): ClusterRecord => ({
  id: 'prod',
  endpoint: 'https://prod.example.com',
  caData: CA,
  auth: { type: 'secret', secretArn: SECRET },
  ownership: 'apps/v1',
  bridgeMode,
});

const unauthorized = () =>
  new KubeApiError('list nodes: 401 Unauthorized', {
    reason: ApiErrorReason.Unauthorized,
    statusCode: 401,
  });

/**
 * A cluster that refuses every connection made with a credential read
 * before the rotation; a fresh read's connection ends its list with
 * `fresh` (the run needs to get no further to show which one it used).
 */
const rotatedCluster = (fresh: () => Error) => {
  const log: string[] = [];
  let forgotten = false;
  const connect = async (): Promise<ClusterConnection> => {
    const stale = !forgotten;
    log.push(stale ? 'connect (cached)' : 'connect (fresh)');
    const fail = async () => {
      throw stale ? unauthorized() : fresh();
    };
    const watch = { list: fail, currentVersion: fail } as unknown;
    return {
      watch: watch as ClusterWatch,
      close: () => log.push('close'),
    } as unknown as ClusterConnection;
  };
  const forgetCredential = (r: ClusterRecord) => {
    log.push(`forget ${r.auth.type === 'secret' ? r.auth.secretArn : ''}`);
    forgotten = true;
  };
  return { log, connect, forgetCredential };
};

const runTurn = async (
  mode: ClusterRecord['bridgeMode'],
  cluster: ReturnType<typeof rotatedCluster>
) => {
  const clock = systemClock;
  const [result] = await runBridgeTurn(
    {
      registry: new MemoryClusterRegistry([record(mode)]),
      connect: cluster.connect,
      forgetCredential: cluster.forgetCredential,
      queue: {
        add: async () => {},
        addAfter: async () => {},
        addAnew: async () => {},
      },
      expectations: new MemoryExpectationsStore({ clock }),
      leases: new MemoryBridgeLeaseStore({ clock }),
      nodeIndex: new MemoryNodeIndexStore(),
      clock,
      logger: new FakeLogger(),
    },
    { mode, clusters: [{ cluster: 'prod', stopAtMs: clock.now() + 5_000 }] },
    // The run ends within a second: a failure is not retried on a timer.
    { invocationId: 'i-1', remainingMs: 20_500, resyncSeconds: 3_600 }
  );
  return result;
};

/** A refused run, the forgotten credential, and one run on a fresh read. */
const ONE_FRESH_READ = [
  'connect (cached)',
  `forget ${SECRET}`,
  'close',
  'connect (fresh)',
  'close',
];

describe('runBridgeTurn with a rotated credential', () => {
  it.each(['economy', 'watch'] as const)(
    'forgets the cached credential after a 401 and runs the %s run again on a fresh read',
    async (mode) => {
      // Prepare
      const cluster = rotatedCluster(() => new Error('fresh credential used'));
      // Act
      const result = await runTurn(mode, cluster);
      // Assess
      expect(cluster.log).toEqual(ONE_FRESH_READ);
      expect(result).toMatchObject({ outcome: 'failed' });
      expect(result && 'error' in result && result.error).toContain(
        'fresh credential used'
      );
    }
  );

  it('fails the run when the fresh credential is refused too, without a loop', async () => {
    // Prepare
    const cluster = rotatedCluster(unauthorized);
    // Act
    const result = await runTurn('watch', cluster);
    // Assess
    expect(cluster.log).toEqual(ONE_FRESH_READ);
    expect(result).toMatchObject({ outcome: 'failed' });
    expect(result && 'error' in result && result.error).toContain('401');
  });
});
