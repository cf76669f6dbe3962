/**
 * A control plane of its own, started and stopped: stopping leaves no
 * process, no listening port and no run directory behind.
 */
import { existsSync } from 'node:fs';
import net from 'node:net';
import { describe, expect, inject, it } from 'vitest';
import { ControlPlane } from '../../lib/local-cluster/control-plane.js';

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const isFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

describe('control plane teardown', () => {
  it('stops every process it started and frees every port', async () => {
    // Prepare
    const cp = await ControlPlane.start({ binDir: inject('binDir') });
    const pids = cp.pids();
    const ports = [...cp.ports];
    // etcd, kube-apiserver, kube-scheduler, support KCM, kwok
    expect(pids).toHaveLength(5);
    expect(pids.every(isAlive)).toBe(true);
    // Act
    await cp.stop();
    // Assess
    expect(pids.filter(isAlive)).toEqual([]);
    const free = await Promise.all(ports.map(isFree));
    expect(ports.filter((_, i) => !free[i])).toEqual([]);
    expect(existsSync(cp.workDir)).toBe(false);
  });
});
