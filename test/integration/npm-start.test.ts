/**
 * `npm start` as a user runs it, with KUBECONFIG exported (as most platform
 * engineers have it) and its output through a pipe: it starts its own local
 * control plane and never touches the exported cluster, shows progress as
 * `kubectl get ds` does, answers `kubectl dsr plan` and `explain` on its
 * cluster, and on Ctrl-C stops every process and removes its directory.
 * Every ownership mode runs so: the own kind and the OnDelete mode beside
 * kube-controller-manager's DaemonSet controller, each converging its
 * sample, and `--kubeconfig` on such a cluster names the modes that fit.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { openAdvancedDaemonSets } from '#lib/adapters/kube/kube-advanced-daemon-sets.js';
import { LOCAL_RUN_USAGE } from '#lib/cli/local-run-options.js';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';
import { waitFor as until } from '#lib/local-cluster/processes.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import { bundleLocalEntry } from '../helpers/bundle-local-entry.js';

let bundle: string;

beforeAll(async () => {
  bundle = await bundleLocalEntry('npm-start-test.mjs');
}, 60_000);

/** Resolves once `text` matches, with the output so far. */
const waitFor = (
  child: ChildProcess,
  out: { text: string },
  pattern: RegExp,
  timeoutMs: number
): Promise<RegExpMatchArray> =>
  new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.stdout?.off('data', check);
      reject(new Error(`no ${pattern} within ${timeoutMs} ms:\n${out.text}`));
    }, timeoutMs);
    const check = () => {
      const m = out.text.match(pattern);
      if (m === null) return;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      resolve(m);
    };
    child.stdout?.on('data', check);
    check();
  });

const portOpen = (url: string): Promise<boolean> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });

describe('npm start (the local run, end to end)', () => {
  let dir: string;
  let child: ChildProcess;
  const out = { text: '' };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'dsr-exported-'));
    const exported = join(dir, 'kubeconfig');
    await writeFile(
      exported,
      'apiVersion: v1\nkind: Config\nclusters: [{name: prod, cluster: {server: "https://127.0.0.1:1"}}]\nusers: [{name: u, user: {token: t}}]\ncontexts: [{name: prod, context: {cluster: prod, user: u}}]\ncurrent-context: prod\n'
    );
    child = spawn(process.execPath, [bundle, '--nodes', '3'], {
      env: { ...process.env, KUBECONFIG: exported },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (b: Buffer) => {
      out.text += b.toString();
    });
  }, 60_000);

  afterAll(async () => {
    if (child.exitCode === null) child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  });

  it('starts its own control plane, converges the sample DaemonSet, and stops clean on Ctrl-C', async () => {
    // Act: wait for the kubectl-like table to show the DaemonSet converged.
    const [, server, kubeconfig] = await waitFor(
      child,
      out,
      /local control plane up: (\S+) \(kubeconfig (\S+)\)/,
      240_000
    );
    await waitFor(
      child,
      out,
      /NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE\nnode-agent\s+3\s+3\s+3\s+3\s+3\s+/,
      120_000
    );
    const deps = {
      open: (t: { kubeconfig?: string }) =>
        openAdvancedDaemonSets({ kubeconfig: t.kubeconfig ?? kubeconfig }),
      now: () => Date.now(),
      sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
      write: () => undefined,
    };
    const plan = await runPlugin(['plan', 'default/node-agent'], deps);
    const explain = await runPlugin(
      ['explain', 'node', 'kwok-node-0', '--ds', 'default/node-agent'],
      deps
    );
    child.kill('SIGINT');
    const code = await new Promise<number | null>((resolve) =>
      child.once('exit', (c) => resolve(c))
    );
    // Assess
    expect(out.text).not.toContain('127.0.0.1:1');
    expect(plan.stdout).toContain(
      'nothing to do: the DaemonSet matches its spec'
    );
    expect(explain.stdout).toMatch(
      /runs node-agent-\w+ \(current revision, Running, Ready\)/
    );
    expect(out.text).toContain('stopped');
    expect(code).toBe(0);
    expect(existsSync(dirname(kubeconfig as string))).toBe(false);
    expect(await portOpen(server as string)).toBe(false);
  }, 400_000);
});

/** A started `npm start` bundle and everything it printed. */
interface Run {
  child: ChildProcess;
  out: { text: string };
  err: { text: string };
}

/** Starts the bundle with `args`, its output through pipes. */
const start = (args: string[]): Run => {
  const child = spawn(process.execPath, [bundle, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run = { child, out: { text: '' }, err: { text: '' } };
  child.stdout?.on('data', (b: Buffer) => {
    run.out.text += b.toString();
  });
  child.stderr?.on('data', (b: Buffer) => {
    run.err.text += b.toString();
  });
  return run;
};

/** Resolves with the exit code once the run has exited. */
const exited = (run: Run): Promise<number | null> =>
  run.child.exitCode !== null
    ? Promise.resolve(run.child.exitCode)
    : new Promise((resolve) => run.child.once('exit', (c) => resolve(c)));

/** Stops a run as Ctrl-C does, and returns its exit code. */
const interrupt = async (run: Run): Promise<number | null> => {
  if (run.child.exitCode !== null) return run.child.exitCode;
  run.child.kill('SIGINT');
  return exited(run);
};

/** Runs the bundle to its end: exit code, stdout and stderr. */
const runToEnd = async (args: string[]) =>
  promisify(execFile)(process.execPath, [bundle, ...args], {
    timeout: 60_000,
  }).then(
    (r) => ({ code: 0, ...r }),
    (e: { code: number; stdout: string; stderr: string }) => e
  );

/** The table line of one DaemonSet: DESIRED CURRENT READY UP-TO-DATE AVAILABLE. */
const tableRow = (name: string, counts: number[]) =>
  new RegExp(`\\n${name}\\s+${counts.join('\\s+')}\\s+<none>\\s`);

/** A raw admin client of a run's cluster (close it when done). */
const adminOf = (kubeconfig: string): KubeHttp => {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromFile(kubeconfig);
  return new KubeHttp({ kubeConfig });
};

/** Plugin dependencies on a run's cluster, the output collected. */
const pluginDeps = (kubeconfig: string) => ({
  open: (t: { kubeconfig?: string }) =>
    openAdvancedDaemonSets({ kubeconfig: t.kubeconfig ?? kubeconfig }),
  now: () => Date.now(),
  sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
  write: () => undefined,
});

/** The images of the sample's pods, by node. */
const sampleImages = async (admin: KubeHttp): Promise<string[]> => {
  const pods = await admin.request<{ items: Pod[] }>(
    'list pods',
    'GET',
    '/api/v1/namespaces/default/pods?labelSelector=app%3Dnode-agent'
  );
  return pods.items
    .filter((p) => p.metadata?.deletionTimestamp === undefined)
    .sort((a, b) =>
      (a.spec?.nodeName ?? '').localeCompare(b.spec?.nodeName ?? '')
    )
    .map((p) => p.spec?.containers[0]?.image ?? '');
};

/** A kube-system DaemonSet, as managed clusters run kube-proxy. */
const KUBE_PROXY = {
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name: 'kube-proxy' },
  spec: {
    selector: { matchLabels: { app: 'kube-proxy' } },
    template: {
      metadata: { labels: { app: 'kube-proxy' } },
      spec: { containers: [{ name: 'proxy', image: 'registry.local/p:1' }] },
    },
  },
};

/** A run of the bundle on its own control plane, and an admin client of it. */
interface LocalRun {
  run: Run;
  kubeconfig: string;
  admin: KubeHttp;
}

/**
 * Starts the bundle with `args` before the block's tests (its control plane
 * up) and kills it after them.
 */
const localRunOf = (args: string[]): LocalRun => {
  const local = {} as LocalRun;
  beforeAll(async () => {
    local.run = start(args);
    const [, path] = await waitFor(
      local.run.child,
      local.run.out,
      /local control plane up: \S+ \(kubeconfig (\S+)\)/,
      240_000
    );
    local.kubeconfig = path as string;
    local.admin = adminOf(local.kubeconfig);
  }, 300_000);
  afterAll(() => {
    local.admin?.close();
    if (local.run?.child.exitCode === null) local.run.child.kill('SIGKILL');
  });
  return local;
};

/** Stops a run as Ctrl-C does: exit code 0, `stopped`, its directory gone. */
const expectCleanStop = async (local: LocalRun): Promise<void> => {
  // Act
  const code = await interrupt(local.run);
  // Assess
  expect(local.run.out.text).toContain('stopped');
  expect(code).toBe(0);
  expect(existsSync(dirname(local.kubeconfig))).toBe(false);
};

const IMAGE_2 = {
  spec: {
    template: {
      spec: {
        containers: [{ name: 'agent', image: 'registry.local/node-agent:2' }],
      },
    },
  },
};

describe('npm start --help and a wrong mode', () => {
  it('names every mode in its help', async () => {
    // Act
    const { code, stdout } = await runToEnd(['--help']);
    // Assess
    expect(code).toBe(0);
    expect(stdout).toBe(LOCAL_RUN_USAGE);
    expect(stdout).toContain(
      `MODE, which DaemonSets the product owns (default apps/v1):
  --ownership apps/v1  native DaemonSets; the cluster's own DaemonSet
                       controller must be off
  --ownership apps.dsr.dev/v1beta1, or --own-kind
                       the own kind, AdvancedDaemonSet, beside the
                       cluster's own DaemonSet controller (EKS, GKE, AKS)
  --ownership apps/v1+OnDelete, or --on-delete
                       native OnDelete DaemonSets that opt in with the
                       apps.dsr.dev/rollout annotation: the cluster's own
                       DaemonSet controller creates the pods, the product
                       rolls them out by deleting old ones
`
    );
  });

  it('refuses an unknown mode in one line, with exit code 2', async () => {
    // Act
    const { code, stderr } = await runToEnd(['--ownership', 'apps/v2']);
    // Assess
    expect(code).toBe(2);
    expect(stderr).toBe(
      'error: --ownership must be one of apps/v1, apps.dsr.dev/v1beta1, apps/v1+OnDelete, not "apps/v2"\n' +
        "See 'npm start -- --help'.\n"
    );
  });
});

describe('npm start -- --own-kind (the own kind beside kube-controller-manager’s DaemonSet controller)', () => {
  const local = localRunOf(['--own-kind', '--nodes', '3']);

  it('installs the CRD and converges the sample AdvancedDaemonSet, while the cluster’s controller runs kube-system’s DaemonSet', async () => {
    // Act
    await waitFor(
      local.run.child,
      local.run.out,
      tableRow('node-agent', [3, 3, 3, 3, 3]),
      120_000
    );
    await local.admin.request(
      'create kube-proxy',
      'POST',
      '/apis/apps/v1/namespaces/kube-system/daemonsets',
      { body: JSON.stringify(KUBE_PROXY) }
    );
    const proxy = await until(
      'kube-controller-manager runs kube-proxy',
      async () => {
        const ds = await local.admin.request<DaemonSet>(
          'get kube-proxy',
          'GET',
          '/apis/apps/v1/namespaces/kube-system/daemonsets/kube-proxy'
        );
        return ds.status?.numberReady === 3 ? ds : undefined;
      },
      60_000,
      300
    );
    // Assess
    expect(local.run.out.text).toContain(
      'local control plane up: https://127.0.0.1:'
    );
    expect(local.run.out.text).toContain(
      "kube-controller-manager's DaemonSet controller on\n3 simulated nodes Ready\nCRD advanceddaemonsets.apps.dsr.dev installed\nsample AdvancedDaemonSet default/node-agent created\n"
    );
    expect(local.run.out.text).toMatch(
      /watching https:\/\/127\.0\.0\.1:\d+ \(ownership apps\.dsr\.dev\/v1beta1\) — Ctrl-C to stop\n/
    );
    expect(
      proxy.metadata?.managedFields
        ?.filter((f) => f.subresource === 'status')
        .map((f) => f.manager)
    ).toEqual(['kube-controller-manager']);
    // The product owns only the own kind: kube-proxy is not in its table.
    expect(local.run.out.text).not.toContain('kube-proxy');
  }, 200_000);

  it('rolls a new image out behind partition 2, and explain says why a node keeps the old one', async () => {
    // Prepare
    const deps = pluginDeps(local.kubeconfig);
    const partition = await runPlugin(
      ['set', 'partition', 'advds/node-agent', '2', '-n', 'default'],
      deps
    );
    // Act
    await local.admin.request(
      'new image',
      'PATCH',
      '/apis/apps.dsr.dev/v1beta1/namespaces/default/advanceddaemonsets/node-agent',
      {
        body: JSON.stringify(IMAGE_2),
        contentType: 'application/merge-patch+json',
      }
    );
    await waitFor(
      local.run.child,
      local.run.out,
      tableRow('node-agent', [3, 3, 3, 1, 3]),
      60_000
    );
    const held = await runPlugin(
      ['explain', 'node', 'kwok-node-0', '--ds', 'default/node-agent'],
      deps
    );
    const updated = await runPlugin(
      ['explain', 'node', 'kwok-node-2', '--ds', 'default/node-agent'],
      deps
    );
    // Assess
    expect(partition.stdout).toBe(
      'advanceddaemonset.apps.dsr.dev/node-agent partition set to 2\n'
    );
    expect(await sampleImages(local.admin)).toEqual([
      'registry.local/node-agent:1',
      'registry.local/node-agent:1',
      'registry.local/node-agent:2',
    ]);
    expect(held.stdout).toMatch(
      /runs node-agent-\w+ \(old revision, Running, Ready\) on an old revision: held on the old revision by partition 2/
    );
    expect(updated.stdout).toMatch(
      /runs node-agent-\w+ \(current revision, Running, Ready\)/
    );
  }, 120_000);

  it('refuses apps/v1 with --kubeconfig on that cluster, naming the modes that fit', async () => {
    // Act
    const { code, stdout, stderr } = await runToEnd([
      '--kubeconfig',
      local.kubeconfig,
      '--yes',
    ]);
    // Assess
    expect(code).toBe(1);
    expect(stdout).toMatch(
      /^cluster: https:\/\/127\.0\.0\.1:\d+, context \(current context\)\n$/
    );
    expect(stderr).toBe(
      'error: another DaemonSet controller is active here (kube-controller-manager writes the status of kube-system/kube-proxy), and apps/v1 ownership would fight it; run with --ownership apps/v1+OnDelete (--on-delete) to roll out OnDelete DaemonSets that opt in with the apps.dsr.dev/rollout annotation, or --ownership apps.dsr.dev/v1beta1 (--own-kind) to reconcile AdvancedDaemonSets\n'
    );
  }, 90_000);

  it('runs with --kubeconfig --ownership apps/v1+OnDelete on that cluster, and stops clean', async () => {
    // Act
    const other = start([
      '--kubeconfig',
      local.kubeconfig,
      '--yes',
      '--ownership',
      'apps/v1+OnDelete',
    ]);
    await waitFor(
      other.child,
      other.out,
      tableRow('kube-proxy', [3, 3, 3, 3, 3]),
      60_000
    );
    const code = await interrupt(other);
    // Assess
    expect(other.out.text).toMatch(
      /watching https:\/\/127\.0\.0\.1:\d+ \(ownership apps\/v1\+OnDelete\) — Ctrl-C to stop\n\d+ syncs, 0 pods created, 0 deleted\n/
    );
    expect(other.err.text).toBe('');
    expect(other.out.text).toContain('stopped');
    expect(code).toBe(0);
  }, 90_000);

  it(
    'stops clean on Ctrl-C, its directory removed',
    () => expectCleanStop(local),
    60_000
  );
});

describe('npm start -- --on-delete (native OnDelete DaemonSets beside kube-controller-manager’s DaemonSet controller)', () => {
  const local = localRunOf(['--on-delete', '--nodes', '3']);

  it('converges the sample, every pod created by the cluster’s controller', async () => {
    // Act
    await waitFor(
      local.run.child,
      local.run.out,
      /\d+ syncs, 0 pods created, 0 deleted\nNAME[^\n]+\nnode-agent\s+3\s+3\s+3\s+3\s+3\s/,
      120_000
    );
    const sample = await local.admin.request<DaemonSet>(
      'get sample',
      'GET',
      '/apis/apps/v1/namespaces/default/daemonsets/node-agent'
    );
    // Assess
    expect(local.run.out.text).toContain(
      "kube-controller-manager's DaemonSet controller on\n3 simulated nodes Ready\nsample OnDelete DaemonSet default/node-agent created\n"
    );
    expect(sample.spec?.updateStrategy?.type).toBe('OnDelete');
    expect(sample.metadata?.annotations?.['apps.dsr.dev/rollout']).toBe(
      '{"maxUnavailable":1}'
    );
  }, 200_000);

  it('rolls a new image out by deleting the old pods, the cluster’s controller creating the new ones', async () => {
    // Act
    await local.admin.request(
      'new image',
      'PATCH',
      '/apis/apps/v1/namespaces/default/daemonsets/node-agent',
      {
        body: JSON.stringify(IMAGE_2),
        contentType: 'application/merge-patch+json',
      }
    );
    await waitFor(
      local.run.child,
      local.run.out,
      /\d+ syncs, 0 pods created, 3 deleted\nNAME[^\n]+\nnode-agent\s+3\s+3\s+3\s+3\s+3\s/,
      120_000
    );
    // Assess
    expect(await sampleImages(local.admin)).toEqual(
      Array(3).fill('registry.local/node-agent:2')
    );
  }, 150_000);

  it('refuses the own kind with --kubeconfig on that cluster, which has no CRD', async () => {
    // Act
    const { code, stderr } = await runToEnd([
      '--kubeconfig',
      local.kubeconfig,
      '--yes',
      '--own-kind',
    ]);
    // Assess
    expect(code).toBe(1);
    expect(stderr).toBe(
      'error: the cluster does not serve AdvancedDaemonSets (apps.dsr.dev/v1beta1); install the CRD first: kubectl apply -f infra/kubernetes/advanced-daemonset-crd.yaml\n'
    );
  }, 90_000);

  it(
    'stops clean on Ctrl-C, its directory removed',
    () => expectCleanStop(local),
    60_000
  );
});
