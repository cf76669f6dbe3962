import { describe, expect, it } from 'vitest';
import { MemorySlowStartMemory } from '#lib/adapters/memory/memory-slow-start-memory.js';

describe('MemorySlowStartMemory', () => {
  it('keeps a proof per key, forgets it on undefined, and drops the least recently used past 1,000 keys', () => {
    // Prepare
    const memory = new MemorySlowStartMemory();
    for (let i = 0; i < 1_001; i++) {
      memory.remember(`c/ns/ds-${i}`, { batch: i, atMs: i });
    }
    // Act
    memory.remember('c/ns/ds-5', undefined);
    // Assess
    expect(memory.recall('c/ns/ds-0')).toBeUndefined();
    expect(memory.recall('c/ns/ds-1')).toEqual({ batch: 1, atMs: 1 });
    expect(memory.recall('c/ns/ds-5')).toBeUndefined();
    expect(memory.recall('c/ns/ds-1000')).toEqual({ batch: 1000, atMs: 1000 });
  });
});
