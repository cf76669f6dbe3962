/** ClusterSessions: one session per cluster per container, refreshed. */
import { describe, expect, it, vi } from 'vitest';
import { MemoryBackoffStore } from '#lib/adapters/memory/memory-backoff-store.js';
import { MemoryExpectationsStore } from '#lib/adapters/memory/memory-expectations-store.js';
import type { ClusterConnection, ClusterRecord } from '#lib/ports/index.js';

import {
  ClusterSessions,
  SESSION_MAX_AGE_MS,
} from '#lib/worker/cluster-sessions.js';
import { FakeClock } from '../../../helpers/fakes/fake-clock.js';

const record = (endpoint: string): ClusterRecord => ({
  id: 'c1',
  endpoint,
  caData: '',
  auth: {
    type: 'secret',
    secretArn: 'arn:aws:secretsmanager:eu-west-1:1:secret:dsr/c1',
  },
  ownership: 'apps/v1',
  bridgeMode: 'watch',
});

const setUp = () => {
  const clock = new FakeClock();
  let current: ClusterRecord | undefined = record('https://a.example');
  const opened: string[] = [];
  const closed: string[] = [];
  const forgotten: string[] = [];
  const sessions = new ClusterSessions({
    registry: {
      get: async () => current,
      list: async () => ({ records: [], invalid: [] }),
    },
    connect: async (r) => {
      opened.push(r.endpoint);
      return {
        close: () => closed.push(r.endpoint),
      } as unknown as ClusterConnection;
    },
    expectations: new MemoryExpectationsStore({ clock }),
    failedPodBackoff: new MemoryBackoffStore(),
    clock,
    forgetCredential: (r) => forgotten.push(r.id),
  });
  return {
    clock,
    sessions,
    opened,
    closed,
    forgotten,
    setRecord: (r: ClusterRecord | undefined) => {
      current = r;
    },
  };
};

describe('ClusterSessions', () => {
  it('reuses a session, then reopens it with the current record after its age', async () => {
    // Prepare
    vi.useFakeTimers();
    const t = setUp();
    // Act
    await t.sessions.get('c1');
    await t.sessions.get('c1');
    t.setRecord(record('https://b.example'));
    t.clock.step(SESSION_MAX_AGE_MS + 1);
    const fresh = await t.sessions.get('c1');
    vi.runAllTimers();
    vi.useRealTimers();
    // Assess
    expect(t.opened).toEqual(['https://a.example', 'https://b.example']);
    expect(fresh?.record.endpoint).toBe('https://b.example');
    expect(t.closed).toEqual(['https://a.example']);
    expect(t.forgotten).toEqual([]);
  });

  it('answers undefined once the cluster is removed from the registry', async () => {
    // Prepare
    const t = setUp();
    await t.sessions.get('c1');
    t.setRecord(undefined);
    t.clock.step(SESSION_MAX_AGE_MS + 1);
    // Act / Assess
    expect(await t.sessions.get('c1')).toBeUndefined();
  });

  it('forgets the credential when the cluster rejected it', async () => {
    // Prepare
    const t = setUp();
    await t.sessions.get('c1');
    // Act
    await t.sessions.invalidate('c1');
    await t.sessions.get('c1');
    // Assess
    expect(t.forgotten).toEqual(['c1']);
    expect(t.opened).toHaveLength(2);
  });
});
