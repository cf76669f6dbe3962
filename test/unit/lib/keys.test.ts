import { describe, expect, it } from 'vitest';
import { TerminalError } from '#lib/errors.js';
import { formatDaemonSetKey, parseDaemonSetKey } from '#lib/keys.js';

describe('DaemonSet keys', () => {
  it('round-trips cluster/namespace/name', () => {
    // Prepare
    const key = { cluster: 'prod-eu', namespace: 'kube-system', name: 'a.b-c' };
    // Act
    const parsed = parseDaemonSetKey(formatDaemonSetKey(key));
    // Assess
    expect(parsed).toEqual(key);
  });

  it.each([
    '',
    'ns/name',
    'a/b/c/d',
    'c//name',
    'c/NS/name',
    'c/ns/name ',
    '{"key":"c/ns/n"}',
  ])('rejects %j as a terminal error', (key) => {
    // Act / Assess
    expect(() => parseDaemonSetKey(key)).toThrow(TerminalError);
  });

  it.each([
    { key: `${'c'.repeat(64)}/ns/n`, what: 'cluster id is 64 characters' },
    { key: `c/${'n'.repeat(64)}/n`, what: 'namespace is 64 characters' },
    { key: `c/ns/${'a'.repeat(254)}`, what: 'name is 254 characters' },
  ])(
    'rejects a segment longer than Kubernetes allows ($what)',
    ({ key, what }) => {
      // Act / Assess
      expect(() => parseDaemonSetKey(key)).toThrow(what);
    }
  );

  it('accepts segments of the longest allowed lengths', () => {
    // Prepare
    const key = `${'c'.repeat(63)}/${'n'.repeat(63)}/${'a'.repeat(253)}`;
    // Act / Assess
    expect(parseDaemonSetKey(key).name).toHaveLength(253);
  });
});
