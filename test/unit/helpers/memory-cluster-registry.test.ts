import { describe, expect, it } from 'vitest';
import { InvalidClusterRecordError } from '#lib/cluster/record.js';
import type { ClusterRecord } from '#lib/ports/index.js';
import { MemoryClusterRegistry } from '../../helpers/fakes/memory-cluster-registry.js';

const record = (id: string): ClusterRecord => ({
  id,
  endpoint: '',
  caData: '',
  auth: { type: 'kubeconfig', path: `/tmp/${id}.kubeconfig` },
  ownership: 'apps/v1',
  bridgeMode: 'watch',
});

describe('MemoryClusterRegistry', () => {
  it('returns registered records by id and lists them sorted', async () => {
    // Prepare
    const registry = new MemoryClusterRegistry([record('b'), record('a')]);
    // Act
    const a = await registry.get('a');
    const listed = await registry.list();
    // Assess
    expect(a).toEqual(record('a'));
    expect(listed.records.map((r) => r.id)).toEqual(['a', 'b']);
  });

  it('forgets a removed record', async () => {
    // Prepare
    const registry = new MemoryClusterRegistry([record('a')]);
    // Act
    registry.remove('a');
    // Assess
    expect(await registry.get('a')).toBeUndefined();
    expect(await registry.list()).toEqual({ records: [], invalid: [] });
  });

  it('refuses a bad record', () => {
    // Prepare
    const registry = new MemoryClusterRegistry();
    // Act
    const put = () =>
      registry.put({ ...record('a'), bridgeMode: 'poll' as 'watch' });
    // Assess
    expect(put).toThrow(InvalidClusterRecordError);
  });

  it('hands out copies', async () => {
    // Prepare
    const registry = new MemoryClusterRegistry([record('a')]);
    const first = await registry.get('a');
    // Act
    if (first) first.bridgeMode = 'economy';
    // Assess
    expect((await registry.get('a'))?.bridgeMode).toBe('watch');
  });
});
