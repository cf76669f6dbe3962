import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  marshalGoJson,
  marshalGoNumber,
  marshalGoString,
} from '#lib/reconcile/go-json.js';

const fixture = JSON.parse(
  readFileSync(
    new URL('../../../fixtures/go-json-vectors.json', import.meta.url),
    'utf8'
  )
) as { vectors: { input: string; go: string }[] };

describe('marshalGoJson', () => {
  it.each(fixture.vectors)('equals Go for $input', ({ input, go }) => {
    // Act
    const out = marshalGoJson(JSON.parse(input));
    // Assess
    expect(out).toBe(go);
  });

  it.each([
    {
      name: 'HTML characters are escaped',
      value: '<>&',
      want: '"\\u003c\\u003e\\u0026"',
    },
    {
      name: 'U+2028 and U+2029 are escaped',
      value: '\u2028\u2029',
      want: '"\\u2028\\u2029"',
    },
    {
      name: 'short escapes for control characters',
      value: '\b\f\n\r\t',
      want: '"\\b\\f\\n\\r\\t"',
    },
    {
      name: 'other control characters as \\u00XX',
      value: '\u0001\u001f',
      want: '"\\u0001\\u001f"',
    },
    { name: 'DEL stays raw', value: '\u007f', want: '"\u007f"' },
    {
      name: 'a lone high surrogate becomes U+FFFD',
      value: 'a\ud800b',
      want: '"a\ufffdb"',
    },
    {
      name: 'a lone low surrogate becomes U+FFFD',
      value: 'a\udc00',
      want: '"a\ufffd"',
    },
    { name: 'a surrogate pair stays', value: '😀', want: '"😀"' },
  ])('$name', ({ value, want }) => {
    // Act / Assess
    expect(marshalGoString(value)).toBe(want);
  });

  it.each([
    { n: 1e21, want: '1e+21' },
    { n: 1e20, want: '100000000000000000000' },
    { n: 1e-7, want: '1e-7' },
    { n: 0.000001, want: '0.000001' },
    { n: -0, want: '-0' },
    { n: 12.5, want: '12.5' },
  ])('renders $n as $want', ({ n, want }) => {
    // Act / Assess
    expect(marshalGoNumber(n)).toBe(want);
  });

  it('sorts keys by UTF-8 bytes, not UTF-16 code units', () => {
    // Prepare: U+FF61 sorts after U+1F600 in UTF-16 but before it in UTF-8.
    const value = { '😀': 1, '\uff61': 2 };
    // Act / Assess
    expect(marshalGoJson(value)).toBe('{"\uff61":2,"😀":1}');
  });

  it('drops undefined members and renders undefined and null as null', () => {
    // Act / Assess
    expect(marshalGoJson({ a: undefined, b: null })).toBe('{"b":null}');
    expect(marshalGoJson(undefined)).toBe('null');
    expect(marshalGoJson([true, false])).toBe('[true,false]');
  });

  it('refuses what JSON cannot carry', () => {
    // Act / Assess
    expect(() => marshalGoNumber(Number.NaN)).toThrow(TypeError);
    expect(() => marshalGoJson(() => 1)).toThrow(TypeError);
  });
});
