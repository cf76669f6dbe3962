/**
 * Child processes of the test bed: started with their output in a log file,
 * stopped by PID (SIGTERM, then SIGKILL), and killed when this Node process
 * exits, however it exits.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

const installExitHook = (): void => {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  const killAll = () => {
    for (const p of live) {
      if (p.pid !== undefined) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  };
  process.on('exit', killAll);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      // A program with its own handler stops its components gracefully; the
      // exit hook still kills whatever is left.
      if (process.listenerCount(signal) > 0) return;
      killAll();
      process.exit(130);
    });
  }
};

/** A started component. */
export interface Component {
  name: string;
  process: ChildProcess;
  logFile: string;
}

/** Starts `binary args` with stdout and stderr appended to `<logDir>/<name>.log`. */
export const startProcess = (
  name: string,
  binary: string,
  args: readonly string[],
  logDir: string
): Component => {
  installExitHook();
  const logFile = path.join(logDir, `${name}.log`);
  const fd = openSync(logFile, 'a');
  const child = spawn(binary, args, { stdio: ['ignore', fd, fd] });
  closeSync(fd);
  live.add(child);
  child.once('exit', () => live.delete(child));
  return { name, process: child, logFile };
};

/** Stops a component by its PID; waits until it has exited. */
export const stopProcess = async (
  c: Component,
  graceMs = 5_000
): Promise<void> => {
  const p = c.process;
  if (p.exitCode !== null || p.signalCode !== null) return;
  const exited = new Promise<void>((resolve) =>
    p.once('exit', () => resolve())
  );
  p.kill('SIGTERM');
  const timer = setTimeout(() => p.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
};

/** Returns whether the component is still running. */
export const isRunning = (c: Component): boolean =>
  c.process.exitCode === null && c.process.signalCode === null;

/** Returns the last `lines` lines of a component's log. */
export const tailLog = (c: Component, lines = 40): string => {
  try {
    return readFileSync(c.logFile, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
};

/** Returns a TCP port on 127.0.0.1 that was free a moment ago. */
const anyFreePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });

/**
 * Returns `pick` made to hand out each port once in this process. A port
 * stays free until the component told it binds it, so the kernel may offer
 * it again meanwhile: etcd's client and peer ports could come out equal and
 * the test bed would fail to start.
 */
export const handingOutOnce =
  (pick: () => Promise<number>, handedOut = new Set<number>()) =>
  async (): Promise<number> => {
    for (let attempt = 1; attempt <= 100; attempt++) {
      const port = await pick();
      if (!handedOut.has(port)) {
        handedOut.add(port);
        return port;
      }
    }
    throw new Error('no free port left that was not handed out already');
  };

/** Returns a TCP port on 127.0.0.1, free a moment ago, not handed out before. */
export const freePort = handingOutOnce(anyFreePort);

/** How many times a start whose port was taken meanwhile is tried. */
export const PORT_ATTEMPTS = 3;

/**
 * Runs `start` again while it fails because a port it was given was taken
 * meanwhile (by another process: this one hands each port out once), up to
 * PORT_ATTEMPTS times in all.
 */
export const retryWhilePortTaken = async <T>(
  start: () => Promise<T>
): Promise<T> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (e) {
      const taken = String(e).includes('address already in use');
      if (!taken || attempt >= PORT_ATTEMPTS) throw e;
    }
  }
};

/** Polls `check` until it returns a value, or throws after `timeoutMs`. */
export const waitFor = async <T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
  intervalMs = 200
): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (e) {
      lastError = e;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  throw new Error(
    `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`
  );
};
