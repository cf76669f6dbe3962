import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  marshalGoJson,
  marshalGoNumber,
  marshalGoString,
  toWellFormed,
} from '#lib/reconcile/k8s/go-json.js';

/** Vectors recorded from Go by test/fixtures/go-oracle (`json` mode). */
const fixture = JSON.parse(
  readFileSync(
    new URL('../../../../fixtures/go-json-vectors.json', import.meta.url),
    'utf8'
  )
) as { vectors: { input: string; go: string; goK8s: string }[] };

describe('marshalGoJson against Go', () => {
  it('has enough recorded vectors', () => {
    // Assess
    expect(fixture.vectors.length).toBeGreaterThanOrEqual(30);
  });

  it.each(fixture.vectors)('equals Go for $input', ({ input, go }) => {
    // Prepare
    const value: unknown = JSON.parse(input);
    // Act
    const out = marshalGoJson(value);
    // Assess
    expect(out).toBe(go);
  });

  it('differs from the int64-preserving k8s decoder only for -0 and integers beyond 2^53', () => {
    // Prepare
    const differing = fixture.vectors.filter((v) => v.go !== v.goK8s);
    // Act
    const inputs = differing.map((v) => v.input);
    // Assess
    expect(inputs).toEqual([
      '-0',
      '[0,-0,1,-1,1.5,-1.5,100,1e2,1E2,1e+2,12.0,0.1e1,100e-2]',
      '[123456789012345678,9007199254740992,9007199254740993,-9007199254740993,9223372036854775807,-9223372036854775808,9223372036854775808,18446744073709551616,123456789012345680000]',
    ]);
  });

  it('renders bigints exactly, as the k8s decoder keeps int64', () => {
    // Prepare
    const value = [
      123456789012345678n,
      9007199254740992n,
      9007199254740993n,
      -9007199254740993n,
      9223372036854775807n,
      -9223372036854775808n,
    ];
    // Act
    const out = marshalGoJson(value);
    // Assess: the k8s column of the vector above, up to the first float.
    expect(out).toBe(
      '[123456789012345678,9007199254740992,9007199254740993,-9007199254740993,9223372036854775807,-9223372036854775808]'
    );
  });
});

describe('marshalGoString', () => {
  it.each([
    {
      name: 'escapes HTML characters',
      value: '<>&',
      want: '"\\u003c\\u003e\\u0026"',
    },
    {
      name: 'escapes U+2028 and U+2029',
      value: '\u2028\u2029',
      want: '"\\u2028\\u2029"',
    },
    {
      name: 'uses short escapes for \\b \\f \\n \\r \\t',
      value: '\b\f\n\r\t',
      want: '"\\b\\f\\n\\r\\t"',
    },
    {
      name: 'writes other control characters as \\u00XX',
      value: '\u0000\u0001\u000b\u001f',
      want: '"\\u0000\\u0001\\u000b\\u001f"',
    },
    { name: 'escapes quote and backslash', value: '"\\', want: '"\\"\\\\"' },
    { name: 'leaves the solidus alone', value: 'a/b', want: '"a/b"' },
    { name: 'leaves DEL raw', value: '\u007f', want: '"\u007f"' },
    { name: 'leaves non-ASCII raw', value: 'é中｡', want: '"é中｡"' },
    { name: 'keeps a surrogate pair', value: '😀', want: '"😀"' },
    {
      name: 'turns a lone high surrogate into U+FFFD',
      value: 'a\ud800b',
      want: '"a\ufffdb"',
    },
    {
      name: 'turns a lone low surrogate into U+FFFD',
      value: 'a\udc00',
      want: '"a\ufffd"',
    },
    {
      name: 'turns a reversed pair into two U+FFFD',
      value: '\udc00\ud800',
      want: '"\ufffd\ufffd"',
    },
    { name: 'writes the empty string', value: '', want: '""' },
  ])('$name', ({ value, want }) => {
    // Act
    const out = marshalGoString(value);
    // Assess
    expect(out).toBe(want);
  });
});

describe('marshalGoNumber', () => {
  it.each([
    { n: 0, want: '0' },
    { n: -0, want: '-0' },
    { n: 12.5, want: '12.5' },
    { n: 1e20, want: '100000000000000000000' },
    { n: 1e21, want: '1e+21' },
    { n: 0.000001, want: '0.000001' },
    { n: 1e-7, want: '1e-7' },
    { n: 0.1 + 0.2, want: '0.30000000000000004' },
    { n: 2 ** 53 + 1, want: '9007199254740992' },
    { n: Number.MAX_VALUE, want: '1.7976931348623157e+308' },
    { n: Number.MIN_VALUE, want: '5e-324' },
  ])('renders $n as $want', ({ n, want }) => {
    // Act
    const out = marshalGoNumber(n);
    // Assess
    expect(out).toBe(want);
  });

  it.each([Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY])(
    'refuses %s',
    (n) => {
      // Act / Assess
      expect(() => marshalGoNumber(n)).toThrow(TypeError);
    }
  );
});

describe('marshalGoJson', () => {
  it('sorts keys by UTF-8 bytes, not by UTF-16 code units', () => {
    // Prepare: U+FF61 sorts after U+1F600 in UTF-16 but before it in UTF-8.
    const value = { '😀': 1, '\uff61': 2, z: 3, A: 4 };
    // Act
    const out = marshalGoJson(value);
    // Assess
    expect(out).toBe('{"A":4,"z":3,"\uff61":2,"😀":1}');
  });

  it('sorts integer-like keys as strings', () => {
    // Prepare: JavaScript enumerates these in numeric order.
    const value = { 10: 'a', 9: 'b', a: 'c' };
    // Act
    const out = marshalGoJson(value);
    // Assess
    expect(out).toBe('{"10":"a","9":"b","a":"c"}');
  });

  it('collapses keys that are equal once lone surrogates are replaced, last wins', () => {
    // Prepare
    const value = { '\ud800': 1, '\ufffd': 2, '\udfff': 3 };
    // Act
    const out = marshalGoJson(value);
    // Assess
    expect(out).toBe('{"\ufffd":3}');
  });

  it('nests without white space and keeps empty maps and lists', () => {
    // Prepare
    const value = { b: [{}, [], [[]]], a: { c: null, d: true, e: false } };
    // Act
    const out = marshalGoJson(value);
    // Assess
    expect(out).toBe('{"a":{"c":null,"d":true,"e":false},"b":[{},[],[[]]]}');
  });

  it('drops undefined members and renders undefined itself as null', () => {
    // Act / Assess
    expect(marshalGoJson({ a: undefined, b: null })).toBe('{"b":null}');
    expect(marshalGoJson(undefined)).toBe('null');
    expect(marshalGoJson(null)).toBe('null');
  });

  it.each([() => 1, Symbol('s'), Number.NaN])('refuses %s', (value) => {
    // Act / Assess
    expect(() => marshalGoJson(value)).toThrow(TypeError);
  });
});

describe('toWellFormed', () => {
  it.each([
    { value: 'plain', want: 'plain' },
    { value: '😀', want: '😀' },
    { value: '\ud800', want: '\ufffd' },
    { value: '\udc00\ud83d\ude00\ud83d', want: '\ufffd😀\ufffd' },
    { value: '\ud800\ud800\udc00', want: '\ufffd𐀀' },
  ])('maps $value to $want', ({ value, want }) => {
    // Act
    const out = toWellFormed(value);
    // Assess
    expect(out).toBe(want);
  });
});
