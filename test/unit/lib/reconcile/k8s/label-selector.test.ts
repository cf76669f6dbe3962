import { describe, expect, it } from 'vitest';
import { InvalidObjectError } from '#lib/errors.js';
import {
  isEmptyLabelSelector,
  labelSelectorMatches,
  newRequirement,
  parseLabelSelector,
  type Requirement,
  requirementMatches,
} from '#lib/reconcile/k8s/label-selector.js';
import type { LabelSelector } from '#lib/reconcile/k8s/types.js';

const labels = { app: 'a', tier: 'web', n: '5', empty: '' };

describe('parseLabelSelector (LabelSelectorAsSelector)', () => {
  it.each<{ name: string; selector: LabelSelector | undefined; want: boolean }>(
    [
      { name: 'undefined selects nothing', selector: undefined, want: false },
      { name: 'empty selects everything', selector: {}, want: true },
      {
        name: 'empty lists select everything',
        selector: { matchLabels: {}, matchExpressions: [] },
        want: true,
      },
      {
        name: 'matchLabels that match',
        selector: { matchLabels: { app: 'a', tier: 'web' } },
        want: true,
      },
      {
        name: 'matchLabels with one value off',
        selector: { matchLabels: { app: 'a', tier: 'db' } },
        want: false,
      },
      {
        name: 'matchLabels on a missing key',
        selector: { matchLabels: { zone: 'a' } },
        want: false,
      },
      {
        name: 'matchLabels with the empty value of a present key',
        selector: { matchLabels: { empty: '' } },
        want: true,
      },
      {
        name: 'matchLabels with the empty value of a missing key',
        selector: { matchLabels: { zone: '' } },
        want: false,
      },
      {
        name: 'In with the value',
        selector: {
          matchExpressions: [
            { key: 'tier', operator: 'In', values: ['db', 'web'] },
          ],
        },
        want: true,
      },
      {
        name: 'In on a missing key',
        selector: {
          matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }],
        },
        want: false,
      },
      {
        name: 'NotIn with the value',
        selector: {
          matchExpressions: [
            { key: 'tier', operator: 'NotIn', values: ['web'] },
          ],
        },
        want: false,
      },
      {
        name: 'NotIn on a missing key',
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
        name: 'DoesNotExist on a present key',
        selector: {
          matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }],
        },
        want: false,
      },
      {
        name: 'labels and expressions ANDed',
        selector: {
          matchLabels: { app: 'a' },
          matchExpressions: [{ key: 'zone', operator: 'Exists' }],
        },
        want: false,
      },
    ]
  )('$name', ({ selector, want }) => {
    // Act
    const got = labelSelectorMatches(selector, labels);
    // Assess
    expect(got).toBe(want);
  });

  it('treats absent labels as an empty set', () => {
    // Prepare
    const matchLabels = parseLabelSelector({ matchLabels: { app: 'a' } });
    const notIn = parseLabelSelector({
      matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['a'] }],
    });
    // Act / Assess
    expect(matchLabels(undefined)).toBe(false);
    expect(notIn(undefined)).toBe(true);
    expect(parseLabelSelector({})(undefined)).toBe(true);
  });

  it('does not read inherited properties as labels', () => {
    // Act
    const got = labelSelectorMatches(
      { matchExpressions: [{ key: 'constructor', operator: 'Exists' }] },
      {}
    );
    // Assess
    expect(got).toBe(false);
  });

  it.each<{ name: string; selector: LabelSelector }>([
    {
      name: 'Gt (a node selector operator only)',
      selector: {
        matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }],
      },
    },
    {
      name: 'an unknown operator',
      selector: {
        matchExpressions: [{ key: 'a', operator: 'Equals', values: ['1'] }],
      },
    },
    {
      name: 'In without values',
      selector: {
        matchExpressions: [{ key: 'a', operator: 'In', values: [] }],
      },
    },
    {
      name: 'NotIn with values absent',
      selector: { matchExpressions: [{ key: 'a', operator: 'NotIn' }] },
    },
    {
      name: 'Exists with values',
      selector: {
        matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }],
      },
    },
    {
      name: 'DoesNotExist with values',
      selector: {
        matchExpressions: [
          { key: 'a', operator: 'DoesNotExist', values: ['x'] },
        ],
      },
    },
    { name: 'an invalid key', selector: { matchLabels: { 'bad key': 'x' } } },
    { name: 'an invalid value', selector: { matchLabels: { a: 'bad value' } } },
    {
      name: 'an invalid expression value',
      selector: {
        matchExpressions: [{ key: 'a', operator: 'In', values: ['-x'] }],
      },
    },
  ])('throws InvalidObjectError for $name', ({ selector }) => {
    // Act
    const parse = () => parseLabelSelector(selector);
    // Assess
    expect(parse).toThrow(InvalidObjectError);
  });

  it('names the offending operator', () => {
    // Act
    const parse = () =>
      parseLabelSelector({
        matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }],
      });
    // Assess
    expect(parse).toThrow('"Gt" is not a valid label selector operator');
  });
});

describe('isEmptyLabelSelector', () => {
  it.each<{ name: string; selector: LabelSelector | undefined; want: boolean }>(
    [
      { name: 'undefined', selector: undefined, want: false },
      { name: 'an empty object', selector: {}, want: true },
      {
        name: 'empty lists',
        selector: { matchLabels: {}, matchExpressions: [] },
        want: true,
      },
      {
        name: 'matchLabels entries',
        selector: { matchLabels: { a: 'b' } },
        want: false,
      },
      {
        name: 'matchExpressions',
        selector: { matchExpressions: [{ key: 'a', operator: 'Exists' }] },
        want: false,
      },
    ]
  )('returns $want for $name', ({ selector, want }) => {
    // Act / Assess
    expect(isEmptyLabelSelector(selector)).toBe(want);
  });
});

describe('newRequirement (labels.NewRequirement)', () => {
  it.each([
    { key: 'app', ok: true },
    { key: 'example.com/app', ok: true },
    { key: 'a.b-c_d', ok: true },
    { key: 'A1', ok: true },
    { key: 'a'.repeat(63), ok: true },
    { key: `${'a'.repeat(253)}/app`, ok: true },
    { key: 'a'.repeat(64), ok: false },
    { key: `${'a'.repeat(254)}/app`, ok: false },
    { key: '/app', ok: false },
    { key: 'example.com/', ok: false },
    { key: 'a/b/c', ok: false },
    { key: 'Example.com/app', ok: false },
    { key: 'example_com/app', ok: false },
    { key: '-app', ok: false },
    { key: 'app-', ok: false },
    { key: 'bad key', ok: false },
    { key: '', ok: false },
  ])('validates the key "$key": $ok', ({ key, ok }) => {
    // Act
    const make = () => newRequirement(key, 'Exists');
    // Assess
    if (ok) expect(make()).toEqual({ key, operator: 'Exists', values: [] });
    else expect(make).toThrow(InvalidObjectError);
  });

  it.each<{ name: string; op: string; values: string[] }>([
    { name: 'In without values', op: 'In', values: [] },
    { name: 'NotIn without values', op: 'NotIn', values: [] },
    { name: 'Exists with a value', op: 'Exists', values: ['x'] },
    { name: 'DoesNotExist with a value', op: 'DoesNotExist', values: ['x'] },
    { name: 'Gt without values', op: 'Gt', values: [] },
    { name: 'Gt with two values', op: 'Gt', values: ['1', '2'] },
    { name: 'Lt with a non-integer', op: 'Lt', values: ['x'] },
    { name: 'Lt with a decimal', op: 'Lt', values: ['1.5'] },
    { name: 'Gt beyond int64', op: 'Gt', values: ['9223372036854775808'] },
    { name: 'Gt with a sign (not a label value)', op: 'Gt', values: ['+1'] },
    { name: 'Lt negative (not a label value)', op: 'Lt', values: ['-1'] },
    { name: 'an unknown operator', op: 'Equals', values: ['x'] },
    { name: 'an invalid value', op: 'In', values: ['ok', 'not ok'] },
    { name: 'a value of 64 characters', op: 'In', values: ['a'.repeat(64)] },
  ])('rejects $name', ({ op, values }) => {
    // Act / Assess
    expect(() => newRequirement('n', op, values)).toThrow(InvalidObjectError);
  });

  it.each<{ name: string; op: string; values: string[] }>([
    { name: 'In with the empty value', op: 'In', values: [''] },
    { name: 'Gt at int64 max', op: 'Gt', values: ['9223372036854775807'] },
    { name: 'Lt with leading zeros', op: 'Lt', values: ['007'] },
  ])('accepts $name', ({ op, values }) => {
    // Act
    const got = newRequirement('n', op, values);
    // Assess
    expect(got).toEqual({ key: 'n', operator: op, values });
  });

  it('copies the values', () => {
    // Prepare
    const values = ['a'];
    // Act
    const got = newRequirement('n', 'In', values);
    values.push('b');
    // Assess
    expect(got.values).toEqual(['a']);
  });
});

describe('requirementMatches (Requirement.Matches)', () => {
  it.each<{ name: string; r: Requirement; want: boolean }>([
    { name: 'Gt below', r: newRequirement('n', 'Gt', ['4']), want: true },
    { name: 'Gt equal', r: newRequirement('n', 'Gt', ['5']), want: false },
    { name: 'Lt above', r: newRequirement('n', 'Lt', ['6']), want: true },
    { name: 'Lt equal', r: newRequirement('n', 'Lt', ['5']), want: false },
    {
      name: 'Lt with leading zeros',
      r: newRequirement('n', 'Lt', ['06']),
      want: true,
    },
    {
      name: 'Gt on a missing key',
      r: newRequirement('zone', 'Gt', ['1']),
      want: false,
    },
    {
      name: 'Lt on a non-integer label',
      r: newRequirement('app', 'Lt', ['1']),
      want: false,
    },
    {
      name: 'Gt built without values',
      r: { key: 'n', operator: 'Gt', values: [] },
      want: false,
    },
    {
      name: 'Lt built with two values',
      r: { key: 'n', operator: 'Lt', values: ['9', '10'] },
      want: false,
    },
    {
      name: 'Gt built with a non-integer',
      r: { key: 'n', operator: 'Gt', values: ['x'] },
      want: false,
    },
  ])('evaluates $name: $want', ({ r, want }) => {
    // Act / Assess
    expect(requirementMatches(r, labels)).toBe(want);
  });

  it.each([
    { value: '-3', op: 'Lt', bound: '0', want: true },
    { value: '+3', op: 'Gt', bound: '2', want: true },
    {
      value: '9223372036854775807',
      op: 'Gt',
      bound: '9223372036854775806',
      want: true,
    },
    { value: '9223372036854775808', op: 'Gt', bound: '1', want: false },
    { value: '-9223372036854775809', op: 'Lt', bound: '1', want: false },
    { value: '1e3', op: 'Gt', bound: '1', want: false },
  ])(
    'parses the label "$value" like strconv.ParseInt (int64)',
    ({ value, op, bound, want }) => {
      // Act
      const got = requirementMatches(newRequirement('v', op, [bound]), {
        v: value,
      });
      // Assess
      expect(got).toBe(want);
    }
  );
});
