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
import { KubeHttp } from '#lib/adapters/kube/kube-http.js';
import { requireBinaries } from './binaries.js';
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
import { repositoryFile } from './repository-file.js';
import { UNMANAGED_LABEL } from './simulated-nodes.js';

const STAGES = repositoryFile(
  import.meta.url,
  'lib/local-cluster/kwok-stages.yaml'
);

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
      cp.#start('kwok', [
        `--kubeconfig=${cp.kubeconfigPath}`,
        `--config=${STAGES}`,
        // Nodes labelled UNMANAGED_LABEL keep the status a test gives them.
        '--manage-all-nodes=false',
        '--manage-nodes-with-annotation-selector=',
        `--manage-nodes-with-label-selector=!${UNMANAGED_LABEL}`,
        '--manage-single-node=',
        '--node-lease-duration-seconds=0',
        '--cidr=10.0.0.0/16',
      ]);
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
    const client = `http://127.0.0.1:${clientPort}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    this.#start('etcd', [
      '--name=dsr',
      `--data-dir=${path.join(this.workDir, 'etcd')}`,
      `--listen-client-urls=${client}`,
      `--advertise-client-urls=${client}`,
      `--listen-peer-urls=${peer}`,
      `--initial-advertise-peer-urls=${peer}`,
      `--initial-cluster=dsr=${peer}`,
      '--unsafe-no-fsync',
      '--quota-backend-bytes=8589934592',
    ]);
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
    this.#start('kube-apiserver', [
      `--etcd-servers=http://127.0.0.1:${etcdPort}`,
      `--etcd-prefix=${etcdPrefix}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      '--endpoint-reconciler-type=none',
      `--cert-dir=${certDir}`,
      `--token-auth-file=${path.join(this.workDir, 'tokens.csv')}`,
      '--authorization-mode=RBAC',
      '--service-account-issuer=https://kubernetes.default.svc',
      `--service-account-key-file=${saKey}`,
      `--service-account-signing-key-file=${saKey}`,
      '--service-cluster-ip-range=10.96.0.0/16',
      '--disable-admission-plugins=ServiceAccount,TaintNodesByCondition',
      '--allow-privileged=true',
      '--max-requests-inflight=2000',
      '--max-mutating-requests-inflight=1000',
    ]);
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
    this.#start('kube-scheduler', [
      `--config=${config}`,
      '--bind-address=127.0.0.1',
      `--secure-port=${port}`,
    ]);
  }

  async #startSupportControllers(): Promise<void> {
    this.#start(
      'kcm-support',
      [
        `--kubeconfig=${this.kubeconfigPath}`,
        `--controllers=garbage-collector-controller,namespace-controller,pod-garbage-collector-controller,clusterrole-aggregation-controller${this.options.daemonSetController ? ',daemonset-controller' : ''}`,
        '--leader-elect=false',
        '--bind-address=127.0.0.1',
        `--secure-port=${await this.#port()}`,
        '--kube-api-qps=5000',
        '--kube-api-burst=10000',
      ],
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
  async stop(): Promise<void> {
    for (const c of [...this.#components.values()].reverse())
      await stopProcess(c);
    this.#components.clear();
    if (!this.options.keepWorkDir)
      rmSync(this.workDir, { recursive: true, force: true });
  }
}
