/**
 * The project's local control plane on 127.0.0.1 (free ports, one temp dir):
 * etcd, kube-apiserver, kube-scheduler, KWOK simulating nodes, and a
 * kube-controller-manager running the support controllers (garbage collector,
 * namespace, podgc, ClusterRole aggregation), with the DaemonSet controller
 * when asked. Used by the integration tests' global setup, the benchmarks and
 * the local run; the tests' oracle starts apart: upstream-controller.ts.
 */

import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { requireBinaries } from './binaries.js';
import {
  apiServerFlags,
  etcdClientUrl,
  etcdFlags,
  kwokFlags,
  schedulerFlags,
  supportControllerFlags,
} from './component-flags.js';
import { kubeconfigYaml, schedulerConfigYaml } from './config-files.js';
import {
  type Component,
  freePort,
  isRunning,
  retryWhilePortTaken,
  startProcess,
  stopProcess,
  tailLog,
  waitFor,
} from './processes.js';

export interface ControlPlaneOptions {
  /** Directory holding etcd, kube-apiserver, kube-scheduler, kube-controller-manager, kwok. */
  binDir: string;
  /** Parent of the run directory (default: the OS temp dir). */
  baseDir?: string;
  /** Keep the run directory after stop (logs for debugging). */
  keepWorkDir?: boolean;
  /** Another cluster on a running control plane's etcd, under its own key prefix (fleet bench). */
  sharedEtcd?: { clientPort: number; prefix: string };
  /** Run the support controllers (GC, namespaces, pod GC, ClusterRole aggregation); default: unless `sharedEtcd`. */
  supportControllers?: boolean;
  /** Also run kube-controller-manager's DaemonSet controller beside them, as managed clusters do. */
  daemonSetController?: boolean;
}

/** A running local control plane. */
export class ControlPlane {
  readonly #components = new Map<string, Component>();
  /** Every TCP port a component was told to listen on. */
  readonly ports: number[] = [];

  /** The etcd client port (shared by tenants started with `sharedEtcd`). */
  etcdClientPort = 0;

  private constructor(
    readonly options: ControlPlaneOptions,
    readonly workDir: string,
    readonly server: string,
    readonly token: string,
    readonly kubeconfigPath: string
  ) {}

  /** Starts every component and waits until the API server is ready. */
  static start(options: ControlPlaneOptions): Promise<ControlPlane> {
    return retryWhilePortTaken(() => ControlPlane.#startOnce(options));
  }

  static async #startOnce(options: ControlPlaneOptions): Promise<ControlPlane> {
    requireBinaries(options.binDir);
    const workDir = mkdtempSync(
      path.join(options.baseDir ?? tmpdir(), 'dsr-cp-')
    );
    for (const d of ['etcd', 'certs', 'logs']) mkdirSync(path.join(workDir, d));
    const token = randomBytes(16).toString('hex');
    const [etcdClient, etcdPeer, apiPort] = [
      await freePort(),
      await freePort(),
      await freePort(),
    ];
    const server = `https://127.0.0.1:${apiPort}`;
    const cp = new ControlPlane(
      options,
      workDir,
      server,
      token,
      path.join(workDir, 'kubeconfig')
    );
    cp.ports.push(etcdClient, etcdPeer, apiPort);
    const shared = options.sharedEtcd;
    cp.etcdClientPort = shared?.clientPort ?? etcdClient;
    try {
      if (!shared) await cp.#startEtcd(etcdClient, etcdPeer);
      await cp.#startApiServer(cp.etcdClientPort, apiPort, shared?.prefix);
      await cp.#startScheduler();
      if (options.supportControllers ?? !shared)
        await cp.#startSupportControllers();
      cp.#start('kwok', kwokFlags(cp.kubeconfigPath));
      return cp;
    } catch (e) {
      const logs = cp.logs();
      await cp.stop();
      throw new Error(`test bed failed to start: ${String(e)}\n${logs}`);
    }
  }

  #start(name: string, args: string[], binary = name): Component {
    const file = path.join(this.options.binDir, binary);
    const c = startProcess(name, file, args, path.join(this.workDir, 'logs'));
    this.#components.set(name, c);
    return c;
  }

  async #startEtcd(clientPort: number, peerPort: number): Promise<void> {
    const client = etcdClientUrl(clientPort);
    this.#start('etcd', etcdFlags(this.workDir, clientPort, peerPort));
    await waitFor(
      'etcd health',
      async () => {
        const res = await fetch(`${client}/health`);
        return res.ok ? true : undefined;
      },
      30_000
    );
  }

  async #startApiServer(
    etcdPort: number,
    apiPort: number,
    etcdPrefix = '/registry'
  ): Promise<void> {
    writeFileSync(
      path.join(this.workDir, 'tokens.csv'),
      `${this.token},dsr-admin,dsr-admin,system:masters\n`,
      { mode: 0o600 }
    );
    const { privateKey } = await import('node:crypto').then((c) =>
      c.generateKeyPairSync('rsa', { modulusLength: 2048 })
    );
    const saKey = path.join(this.workDir, 'sa.key');
    writeFileSync(saKey, privateKey.export({ type: 'pkcs8', format: 'pem' }), {
      mode: 0o600,
    });
    const certDir = path.join(this.workDir, 'certs');
    this.#start(
      'kube-apiserver',
      apiServerFlags({
        workDir: this.workDir,
        etcdPort,
        etcdPrefix,
        apiPort,
        certDir,
        saKey,
      })
    );
    const crt = path.join(certDir, 'apiserver.crt');
    await waitFor(
      'kube-apiserver serving certificate',
      async () => (existsSync(crt) ? true : undefined),
      60_000
    );
    writeFileSync(
      this.kubeconfigPath,
      kubeconfigYaml(this.server, readFileSync(crt), this.token),
      { mode: 0o600 }
    );
    const http = this.http();
    try {
      await waitFor(
        'kube-apiserver /readyz',
        async () => {
          await http.requestText('readyz', 'GET', '/readyz');
          return true;
        },
        90_000,
        300
      );
    } finally {
      http.close();
    }
  }

  async #startScheduler(): Promise<void> {
    const port = await this.#port();
    const config = path.join(this.workDir, 'scheduler.yaml');
    writeFileSync(config, schedulerConfigYaml(this.kubeconfigPath));
    this.#start('kube-scheduler', schedulerFlags(config, port));
  }

  async #startSupportControllers(): Promise<void> {
    const port = await this.#port();
    this.#start(
      'kcm-support',
      supportControllerFlags(
        this.kubeconfigPath,
        port,
        this.options.daemonSetController === true
      ),
      'kube-controller-manager'
    );
  }

  /** Returns a KubeConfig for the admin identity. */
  kubeConfig(): KubeConfig {
    const kc = new KubeConfig();
    kc.loadFromFile(this.kubeconfigPath);
    return kc;
  }

  /** Returns a raw client for the admin identity (close it when done). */
  http(): KubeHttp {
    return new KubeHttp({ kubeConfig: this.kubeConfig() });
  }

  /** Returns the tail of every component's log (for failure messages). */
  logs(lines = 30): string {
    return [...this.#components.values()]
      .map(
        (c) =>
          `--- ${c.name}${isRunning(c) ? '' : ' (exited)'} ---\n${tailLog(c, lines)}`
      )
      .join('\n');
  }

  async #port(): Promise<number> {
    const port = await freePort();
    this.ports.push(port);
    return port;
  }

  /** Returns the PIDs of the running components. */
  pids(): number[] {
    return [...this.#components.values()].flatMap((c) =>
      c.process.pid === undefined ? [] : [c.process.pid]
    );
  }

  /** Returns the names of components that exited unexpectedly. */
  deadComponents(): string[] {
    return [...this.#components.values()]
      .filter((c) => !isRunning(c))
      .map((c) => c.name);
  }

  /** Stops every component by PID (reverse start order) and removes the run directory. */
  /** Stops one component, say `kube-apiserver` (a cluster that goes away). */
  async stopComponent(name: string): Promise<void> {
    const c = this.#components.get(name);
    if (c === undefined) return;
    await stopProcess(c);
    this.#components.delete(name);
  }

  async stop(): Promise<void> {
    for (const c of [...this.#components.values()].reverse())
      await stopProcess(c);
    this.#components.clear();
    if (!this.options.keepWorkDir)
      rmSync(this.workDir, { recursive: true, force: true });
  }
}
