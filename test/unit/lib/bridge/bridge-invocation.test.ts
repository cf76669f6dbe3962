/**
 * runBridgeInvocation over fakes: one invalid registry item is skipped,
 * logged and counted, and every valid cluster still runs (F1).
 */
import { describe, expect, it } from 'vitest';
import { MemoryBridgeLeaseStore } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import { MemoryExpectationsStore } from '#lib/adapters/memory/memory-expectations-store.js';
import { MemoryNodeIndexStore } from '#lib/adapters/memory/memory-node-index-store.js';
import { runBridgeInvocation } from '#lib/bridge/bridge-invocation.js';
import type { ClusterRecord, WorkQueue } from '#lib/ports/index.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';
import { FakeLogger } from '../../../helpers/fakes/fake-logger.js';
import { MemoryClusterRegistry } from '../../../helpers/fakes/memory-cluster-registry.js';

const record = (id: string): ClusterRecord => ({
  id,
  endpoint: '',
  caData: '',
  auth: { type: 'kubeconfig', path: '/dev/null' },
  ownership: 'apps/v1',
  bridgeMode: 'economy',
});

describe('runBridgeInvocation', () => {
  it('skips an invalid registry item, logs and counts it, and runs every valid cluster', async () => {
    // Prepare
    const clock = new FakeClock();
    const logger = new FakeLogger();
    const registry = new MemoryClusterRegistry([record('a'), record('c')]);
    registry.invalid.push({
      key: 'cluster#b',
      error: 'cluster b: unknown field "color"',
    });
    const connected: string[] = [];
    const queue: WorkQueue = {
      add: async () => {},
      addAfter: async () => {},
      addAnew: async () => {},
    };
    // Act
    const results = await runBridgeInvocation(
      {
        registry,
        connect: async (r) => {
          connected.push(r.id);
          throw new Error('no cluster in unit tests');
        },
        queue,
        expectations: new MemoryExpectationsStore({ clock }),
        leases: new MemoryBridgeLeaseStore({ clock }),
        nodeIndex: new MemoryNodeIndexStore(),
        clock,
        logger,
      },
      {
        invocationId: 'i-1',
        remainingMs: 60_000,
        watchSeconds: 10,
        economySeconds: 5,
        resyncSeconds: 3_600,
      }
    );
    // Assess
    expect(connected).toEqual(['a', 'c']);
    expect(results.map((r) => [r.cluster, r.outcome])).toEqual([
      ['cluster#b', 'invalid-record'],
      ['a', 'failed'],
      ['c', 'failed'],
    ]);
    expect(
      logger.lines.find((l) => l.message === 'invalid cluster record skipped')
        ?.fields
    ).toMatchObject({ record: 'cluster#b', invalidRecords: 1 });
  });
});
