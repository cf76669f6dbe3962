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
});
