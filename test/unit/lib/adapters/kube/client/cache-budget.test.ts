/**
 * CacheBudget: the container's watched collections stay within an object
 * budget by dropping the ones read least recently, never the one just read.
 */
import { describe, expect, it } from 'vitest';
import { CacheBudget } from '#lib/adapters/kube/client/cache-budget.js';

const collection = (name: string, size: number, closed: string[]) => ({
  size,
  close: () => closed.push(name),
});

describe('CacheBudget', () => {
  it('drops the collections read least recently once over budget', () => {
    // Prepare
    const closed: string[] = [];
    const budget = new CacheBudget(100);
    const a = collection('a', 40, closed);
    const b = collection('b', 40, closed);
    const c = collection('c', 40, closed);
    budget.touched(a);
    budget.touched(b);
    budget.touched(a);
    // Act
    budget.touched(c);
    // Assess: b was read before a's second read
    expect(closed).toEqual(['b']);
    expect(budget.evictions).toBe(1);
  });

  it('keeps the collection just read, even when it alone exceeds the budget', () => {
    // Prepare
    const closed: string[] = [];
    const budget = new CacheBudget(100);
    budget.touched(collection('small', 10, closed));
    // Act
    budget.touched(collection('huge', 500, closed));
    // Assess
    expect(closed).toEqual(['small']);
  });

  it('stops weighing a collection it was told was closed', () => {
    // Prepare
    const closed: string[] = [];
    const budget = new CacheBudget(100);
    const a = collection('a', 90, closed);
    budget.touched(a);
    budget.forget(a);
    // Act
    budget.touched(collection('b', 90, closed));
    // Assess
    expect(closed).toEqual([]);
  });
});
