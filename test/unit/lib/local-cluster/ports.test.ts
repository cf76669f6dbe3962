/**
 * Ports for the local control plane's components: each handed out once in
 * a process, and a start retried when another process took its port.
 */
import { describe, expect, it } from 'vitest';
import {
  freePort,
  handingOutOnce,
  PORT_ATTEMPTS,
  retryWhilePortTaken,
} from '#lib/local-cluster/processes.js';

describe('handingOutOnce', () => {
  it('never hands out a port twice, though the kernel offers it again (etcd client and peer ports came out equal, session 21)', async () => {
    // Arrange
    const offered = [41845, 41845, 41846, 41845, 41847];
    const port = handingOutOnce(async () => offered.shift() ?? 0);

    // Act
    const ports = [await port(), await port(), await port()];

    // Assess
    expect(ports).toEqual([41845, 41846, 41847]);
  });

  it('fails when the kernel keeps offering ports already handed out', async () => {
    // Arrange
    const port = handingOutOnce(async () => 41845);
    await port();

    // Act / Assess
    await expect(port()).rejects.toThrow(/no free port left/);
  });

  it('hands out distinct free ports from the kernel', async () => {
    // Act
    const ports = await Promise.all(Array.from({ length: 20 }, freePort));

    // Assess
    expect(new Set(ports).size).toBe(20);
    expect(ports.every((p) => p > 0)).toBe(true);
  });
});

describe('retryWhilePortTaken', () => {
  it('starts again when a port was taken meanwhile', async () => {
    // Arrange
    let attempts = 0;
    const start = async () => {
      attempts++;
      if (attempts < PORT_ATTEMPTS) {
        throw new Error(
          'etcd: listen tcp 127.0.0.1:41845: bind: address already in use'
        );
      }
      return 'up';
    };

    // Act
    const result = await retryWhilePortTaken(start);

    // Assess
    expect(result).toBe('up');
    expect(attempts).toBe(PORT_ATTEMPTS);
  });

  it(`gives up after ${PORT_ATTEMPTS} attempts`, async () => {
    // Arrange
    let attempts = 0;
    const start = async () => {
      attempts++;
      throw new Error('bind: address already in use');
    };

    // Act / Assess
    await expect(retryWhilePortTaken(start)).rejects.toThrow(/already in use/);
    expect(attempts).toBe(PORT_ATTEMPTS);
  });

  it('does not retry a start that failed for another reason', async () => {
    // Arrange
    let attempts = 0;
    const start = async () => {
      attempts++;
      throw new Error('kube-apiserver exited: bad flag');
    };

    // Act / Assess
    await expect(retryWhilePortTaken(start)).rejects.toThrow(/bad flag/);
    expect(attempts).toBe(1);
  });
});
