import { describe, expect, it } from 'vitest';
import { InvalidObjectError } from '#lib/errors.js';
import {
  isEmptyLabelSelector,
  labelSelectorMatches,
  newRequirement,
  parseLabelSelector,
  requirementMatches,
} from '#lib/reconcile/label-selector.js';
import type { LabelSelector } from '#lib/reconcile/types.js';

const labels = { app: 'a', tier: 'web', n: '5' };

describe('parseLabelSelector (LabelSelectorAsSelector)', () => {
  it.each<{ name: string; selector: LabelSelector | undefined; want: boolean }>(
    [
      { name: 'undefined selects nothing', selector: undefined, want: false },
      { name: 'empty selects everything', selector: {}, want: true },
      {
        name: 'empty maps select everything',
        selector: { matchLabels: {}, matchExpressions: [] },
        want: true,
      },
      {
        name: 'matchLabels match',
        selector: { matchLabels: { app: 'a' } },
        want: true,
      },
      {
        name: 'matchLabels mismatch',
        selector: { matchLabels: { app: 'b' } },
        want: false,
      },
      {
        name: 'In',
        selector: {
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['db', 'web'] },
          ],
        },
        want: true,
      },
      {
        name: 'NotIn with value present',
        selector: {
          matchExpressions: [
            { key: 'tier', operator: 'NotIn', values: ['web'] },
          ],
        },
        want: false,
      },
      {
        name: 'NotIn with label absent',
        selector: {
          matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['x'] }],
        },
        want: true,
      },
      {
        name: 'Exists',
        selector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] },
        want: true,
      },
      {
        name: 'DoesNotExist',
        selector: {
          matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }],
        },
        want: false,
      },
      {
        name: 'labels and expressions are ANDed',
        selector: {
          matchLabels: { app: 'a' },
          matchExpressions: [{ key: 'zone', operator: 'Exists' }],
        },
        want: false,
      },
    ]
  )('$name', ({ selector, want }) => {
    // Act / Assess
    expect(labelSelectorMatches(selector, labels)).toBe(want);
  });

  it('matches nothing against absent labels unless the selector is empty', () => {
    // Act / Assess
    expect(parseLabelSelector({ matchLabels: { app: 'a' } })(undefined)).toBe(
      false
    );
    expect(parseLabelSelector({})(undefined)).toBe(true);
  });

  it.each<{ name: string; selector: LabelSelector }>([
    {
      name: 'unknown operator',
      selector: {
        matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }],
      },
    },
    {
      name: 'In without values',
      selector: {
        matchExpressions: [{ key: 'a', operator: 'In', values: [] }],
      },
    },
    {
      name: 'Exists with values',
      selector: {
        matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }],
      },
    },
    { name: 'invalid key', selector: { matchLabels: { 'bad key': 'x' } } },
    { name: 'invalid value', selector: { matchLabels: { a: 'bad value' } } },
  ])('rejects an invalid selector: $name', ({ selector }) => {
    // Act / Assess
    expect(() => parseLabelSelector(selector)).toThrow(InvalidObjectError);
  });

  it('tells an empty selector apart', () => {
    // Act / Assess
    expect(isEmptyLabelSelector({})).toBe(true);
    expect(isEmptyLabelSelector({ matchLabels: {} })).toBe(true);
    expect(isEmptyLabelSelector(undefined)).toBe(false);
    expect(isEmptyLabelSelector({ matchLabels: { a: 'b' } })).toBe(false);
    expect(
      isEmptyLabelSelector({
        matchExpressions: [{ key: 'a', operator: 'Exists' }],
      })
    ).toBe(false);
  });
});

describe('newRequirement / requirementMatches (labels.NewRequirement)', () => {
  it.each([
    { key: 'example.com/app', ok: true },
    { key: 'app', ok: true },
    { key: 'a'.repeat(63), ok: true },
    { key: 'a'.repeat(64), ok: false },
    { key: '/app', ok: false },
    { key: 'Example.com/app', ok: false },
    { key: `${'a'.repeat(254)}/app`, ok: false },
    { key: '-app', ok: false },
    { key: '', ok: false },
  ])('validates key $key', ({ key, ok }) => {
    // Act
    const make = () => newRequirement(key, 'Exists');
    // Assess
    if (ok) expect(make()).toMatchObject({ key });
    else expect(make).toThrow(InvalidObjectError);
  });

  it.each([
    { op: 'Gt', values: ['4'], want: true },
    { op: 'Gt', values: ['5'], want: false },
    { op: 'Lt', values: ['6'], want: true },
    { op: 'Lt', values: ['5'], want: false },
  ])('compares integers with $op $values', ({ op, values, want }) => {
    // Act / Assess
    expect(requirementMatches(newRequirement('n', op, values), labels)).toBe(
      want
    );
  });

  it('never matches Gt/Lt on a missing or non-integer label', () => {
    // Act / Assess
    expect(
      requirementMatches(newRequirement('zone', 'Gt', ['1']), labels)
    ).toBe(false);
    expect(requirementMatches(newRequirement('app', 'Lt', ['1']), labels)).toBe(
      false
    );
  });

  it.each([
    { op: 'Gt', values: [] },
    { op: 'Gt', values: ['1', '2'] },
    { op: 'Lt', values: ['x'] },
    { op: 'Equals', values: ['x'] },
  ])('rejects $op with $values', ({ op, values }) => {
    // Act / Assess
    expect(() => newRequirement('n', op, values)).toThrow(InvalidObjectError);
  });

  it('defaults to no values', () => {
    // Act / Assess
    expect(newRequirement('n', 'DoesNotExist').values).toEqual([]);
  });
});
