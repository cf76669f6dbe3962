import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  afterAll,
  afterEach,
  beforeAll,
  beforeEach,
  describe,
  expect,
  it,
} from 'vitest';
import type { MemoryBridgeLeaseStore } from '#lib/adapters/memory/memory-bridge-lease-store.js';
import type { MemoryClusterHealthStore } from '#lib/adapters/memory/memory-cluster-health-store.js';
import type { MemoryOwnershipStore } from '#lib/adapters/memory/memory-ownership-store.js';
import type { ClustersCliDeps } from '#lib/cli/clusters/clusters-commands.js';
import { runClustersCli } from '#lib/cli/clusters/run-clusters-cli.js';
import { ReconcilerError } from '#lib/errors.js';
import { USER_AGENT } from '#lib/policy/identity.js';
import {
  answering,
  type ClustersCliBed,
  createClustersCliBed,
  kubeconfigYaml,
  LOCAL_DYNAMODB,
} from '../../../../helpers/clusters-cli-bed.js';
import type { MemoryClusterRegistry } from '../../../../helpers/fakes/memory-cluster-registry.js';

const KUBECONFIG = kubeconfigYaml('https://10.0.0.1:6443');

describe('runClustersCli', () => {
  let bed: ClustersCliBed;
  let dir: string;
  let kubeconfig: string;
  /** A kubeconfig of another API server (https://10.0.0.2:6443). */
  let otherServer: string;
  let registry: MemoryClusterRegistry;
  let ownership: MemoryOwnershipStore;
  let health: MemoryClusterHealthStore;
  let leases: MemoryBridgeLeaseStore;
  let deps: ClustersCliDeps;
  /** Runs the CLI on DynamoDB Local's table `state` (deps stand in for it). */
  const run = (...argv: string[]) =>
    runClustersCli(
      ['--table', 'state', '--endpoint', LOCAL_DYNAMODB, ...argv],
      {},
      () => deps
    );
  const addLocal = (id: string, ...extra: string[]) =>
    run('add', '--id', id, '--kubeconfig', kubeconfig, ...extra);

  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'dsr-cli-'));
    kubeconfig = path.join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, KUBECONFIG);
    otherServer = path.join(dir, 'kubeconfig-other');
    writeFileSync(
      otherServer,
      KUBECONFIG.replace('https://10.0.0.1:6443', 'https://10.0.0.2:6443')
    );
  });

  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    // A cluster that passes every check (add runs them before writing).
    bed = createClustersCliBed();
    ({ registry, ownership, health, leases, deps } = bed);
  });

  afterEach(() => bed.cleanup());

  describe('add, list and remove', () => {
    it('stores the API ceiling given with --api-qps and --api-burst', async () => {
      // Act
      const added = await addLocal(
        'budgeted',
        '--api-qps',
        '50',
        '--api-burst',
        '80'
      );
      const rateOnly = await run(
        'add',
        '--id',
        'rate-only',
        '--kubeconfig',
        otherServer,
        '--api-qps',
        '100'
      );
      const refused = await addLocal('bad', '--api-qps', '0');
      // Assess
      expect(added.exitCode).toBe(0);
      expect((await registry.get('budgeted'))?.apiBudget).toEqual({
        qps: 50,
        burst: 80,
      });
      // A ceiling given by its rate alone keeps two seconds of it as burst.
      expect(rateOnly.exitCode).toBe(0);
      expect((await registry.get('rate-only'))?.apiBudget).toEqual({
        qps: 100,
        burst: 200,
      });
      expect(refused.exitCode).toBe(2);
      expect(refused.stderr).toContain('--api-qps');
    });

    it('adds a cluster, lists it and removes it', async () => {
      // Act
      const added = await addLocal('local', '--mode', 'economy');
      const listed = await run('list');
      const wide = await run('list', '-o', 'wide');
      const removed = await run('remove', '--id', 'local');
      const after = await run('list');
      // Assess
      expect(added).toEqual({
        exitCode: 0,
        stdout: [
          'cluster local (https://10.0.0.1:6443)',
          '  ok    reachable: Kubernetes v1.36.3',
          '  ok    authenticated as admin',
          '  ok    RBAC: all 31 permissions of infra/kubernetes/rbac.yaml granted',
          '  note  kubeconfig auth is for local runs only: the deployed functions cannot read this file',
          '  => OK',
          `added cluster local: https://10.0.0.1:6443, economy mode, auth kubeconfig ${kubeconfig}`,
          '',
        ].join('\n'),
        stderr: '',
      });
      expect(listed.stdout.split('\n')).toEqual([
        'ID     SERVER                 MODE     STATUS  BUDGET   LAST-BRIDGED  AUTH',
        'local  https://10.0.0.1:6443  economy  Ready   400/800  never         kubeconfig',
        '',
      ]);
      expect(wide.stdout.split('\n')).toEqual([
        'ID     SERVER                 MODE     STATUS  BUDGET   LAST-BRIDGED  BRIDGE  NODES  OWNERSHIP  LABELS  AUTH',
        `local  https://10.0.0.1:6443  economy  Ready   400/800  never         never   -      apps/v1    <none>  kubeconfig ${kubeconfig}`,
        '',
      ]);
      expect(removed).toEqual({
        exitCode: 0,
        stdout:
          'removed cluster local (https://10.0.0.1:6443) from state, with its bookmarks and fence\n',
        stderr: '',
      });
      expect(after.stdout).toBe('no clusters registered\n');
      expect((await registry.list()).records).toEqual([]);
    });

    describe('asking the cluster before an apps/v1 registration', () => {
      /** A cluster whose kube-system DaemonSet status these managers write. */
      const clusterWithStatusManagers = (managers: string[]) => {
        const probed: string[] = [];
        deps.connect = async () => ({
          probe: answering({
            daemonSetStatusManagers: async () => {
              probed.push('daemonSetStatusManagers');
              return [{ daemonSet: 'kube-system/kube-proxy', managers }];
            },
          }),
          close: () => undefined,
        });
        return probed;
      };

      it('refuses apps/v1 where another DaemonSet controller is active, storing nothing', async () => {
        // Prepare
        clusterWithStatusManagers(['kube-controller-manager']);
        // Act
        const added = await addLocal('eks');
        // Assess
        expect(added).toEqual({
          exitCode: 1,
          stdout: '',
          stderr: [
            'cluster eks (https://10.0.0.1:6443)',
            '  ok    reachable: Kubernetes v1.36.3',
            '  ok    authenticated as admin',
            '  ok    RBAC: all 31 permissions of infra/kubernetes/rbac.yaml granted',
            '  FAIL  ownership: another DaemonSet controller is active here (kube-controller-manager writes the status of kube-system/kube-proxy); register the cluster with --ownership apps/v1+OnDelete to roll out OnDelete DaemonSets that opt in, or apps.dsr.dev/v1beta1 and use AdvancedDaemonSets, or turn that controller off',
            '  note  kubeconfig auth is for local runs only: the deployed functions cannot read this file',
            '  => FAILED',
            'error: cluster eks not registered: its check failed (--skip-check registers it anyway)',
            '',
          ].join('\n'),
        });
        expect((await registry.list()).records).toEqual([]);
      });

      it('adds the own kind there without asking, and apps/v1 with --skip-check', async () => {
        // Prepare
        const probed = clusterWithStatusManagers(['kube-controller-manager']);
        // Act
        const own = await addLocal(
          'own',
          '--ownership',
          'apps.dsr.dev/v1beta1'
        );
        const skipped = await run(
          'add',
          '--id',
          'forced',
          '--kubeconfig',
          otherServer,
          '--skip-check'
        );
        // Assess
        expect([own.exitCode, skipped.exitCode]).toEqual([0, 0]);
        expect(own.stdout).not.toContain('warning');
        expect(probed).toEqual([]);
        expect((await registry.list()).records.map((r) => r.id).sort()).toEqual(
          ['forced', 'own']
        );
      });

      it('adds apps/v1 without a word where only this product writes DaemonSet status', async () => {
        // Prepare
        const probed = clusterWithStatusManagers([USER_AGENT]);
        // Act
        const added = await addLocal('bare');
        // Assess
        expect(added.exitCode).toBe(0);
        expect(added.stdout).not.toContain('warning');
        expect(probed).toEqual(['daemonSetStatusManagers']);
      });

      it('notes, and still adds, when the ownership question gets no answer in time', async () => {
        // Prepare
        let closed = 0;
        deps.connect = async () => ({
          probe: answering({
            daemonSetStatusManagers: () => new Promise<never>(() => undefined),
          }),
          close: () => {
            closed++;
          },
        });
        // Act
        const added = await addLocal('slow', '--timeout', '0.05');
        // Assess
        expect(added.exitCode).toBe(0);
        expect(added.stdout).toContain(
          '  note  could not tell whether another DaemonSet controller is active: no answer within 0.05 s\n'
        );
        expect(closed).toBeGreaterThan(0);
      });

      it('notes, and still adds, when the ownership probe fails', async () => {
        // Prepare
        deps.connect = async () => ({
          probe: answering({
            daemonSetStatusManagers: async () => {
              throw new Error('forbidden: list daemonsets');
            },
          }),
          close: () => undefined,
        });
        // Act
        const added = await addLocal('denied');
        // Assess
        expect(added.exitCode).toBe(0);
        expect(added.stdout).toContain(
          '  note  could not tell whether another DaemonSet controller is active: forbidden: list daemonsets\n'
        );
      });
    });

    it('lists clusters as JSON', async () => {
      // Prepare
      await run('add', '--id', 'b', '--kubeconfig', otherServer);
      await addLocal('a', '--context', 'c');
      // Act
      const listed = await run('list', '--json');
      // Assess
      expect(listed.exitCode).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual({
        clusters: [
          {
            id: 'a',
            server: 'https://10.0.0.1:6443',
            auth: { type: 'kubeconfig', path: kubeconfig, context: 'c' },
            mode: 'watch',
            ownership: 'apps/v1',
            status: 'Ready',
            bridge: 'never',
            budget: '400/800',
          },
          {
            id: 'b',
            server: 'https://10.0.0.2:6443',
            auth: { type: 'kubeconfig', path: otherServer },
            mode: 'watch',
            ownership: 'apps/v1',
            status: 'Ready',
            bridge: 'never',
            budget: '400/800',
          },
        ],
        invalid: [],
      });
    });

    it('shows each cluster’s status, bridge and API budget: fenced, unhealthy, failing, running', async () => {
      // Prepare
      for (const [i, id] of ['fenced', 'sick', 'bridging'].entries()) {
        const file = path.join(dir, `kubeconfig-${id}`);
        writeFileSync(
          file,
          KUBECONFIG.replace(
            'https://10.0.0.1:6443',
            `https://10.0.1.${i}:6443`
          )
        );
        await run('add', '--id', id, '--kubeconfig', file, '--skip-check');
      }
      await ownership.fence('fenced', 'another controller');
      await health.recordFailure('sick', 'timed out', () => 60_000, 0);
      await leases.recordFailure('sick', 'run-1');
      await leases.recordFailure('sick', 'run-2');
      await leases.acquire('bridging', 'run-3', 60_000, Date.now() + 600_000);
      // Act
      const listed = await run('list', '--json');
      // Assess
      const rows = (
        JSON.parse(listed.stdout) as { clusters: Record<string, string>[] }
      ).clusters.map((c) => [c.id, c.status, c.bridge]);
      expect(rows).toEqual([
        ['bridging', 'Ready', 'running'],
        ['fenced', 'Fenced', 'never'],
        ['sick', 'Unhealthy (1 failures)', 'failing ×2'],
      ]);
    });

    it('refuses a second registration of one API server under another id (F9)', async () => {
      // Prepare
      await addLocal('prod');
      // Act
      const twin = await addLocal('prod-again');
      // Assess
      expect(twin).toEqual({
        exitCode: 1,
        stdout: '',
        stderr:
          'error: https://10.0.0.1:6443 is already registered as cluster prod; one API server takes one registration\n',
      });
      expect((await registry.list()).records.map((r) => r.id)).toEqual([
        'prod',
      ]);
    });

    it('lists the valid clusters and names the invalid items it skips, exiting 1 (F1)', async () => {
      // Prepare
      await addLocal('a');
      registry.invalid.push({
        key: 'cluster#b',
        error: 'cluster b: unknown field "color"',
      });
      // Act
      const listed = await run('list');
      const checked = await run('check');
      // Assess
      expect(listed.exitCode).toBe(1);
      expect(listed.stdout.split('\n')).toEqual([
        'ID  SERVER                 MODE   STATUS  BUDGET   LAST-BRIDGED  AUTH',
        'a   https://10.0.0.1:6443  watch  Ready   400/800  never         kubeconfig',
        'invalid record cluster#b (skipped): cluster b: unknown field "color"',
        '',
      ]);
      expect(checked.exitCode).toBe(1);
      expect(checked.stdout).toContain(
        'invalid record cluster#b (skipped): cluster b: unknown field "color"'
      );
      expect(checked.stdout).toContain('1 of 2 clusters OK');
    });

    it('refuses to overwrite a cluster unless told to', async () => {
      // Prepare
      await addLocal('local');
      // Act
      const again = await addLocal('local', '--mode', 'economy');
      const replaced = await addLocal(
        'local',
        '--mode',
        'economy',
        '--replace'
      );
      // Assess
      expect(again.exitCode).toBe(1);
      expect(again.stderr).toBe(
        `error: cluster local is already registered (kubeconfig ${kubeconfig}); pass --replace to overwrite it\n`
      );
      expect(replaced.exitCode).toBe(0);
      expect(replaced.stdout).toMatch(/ => OK\nreplaced cluster local: /);
      expect((await registry.get('local'))?.bridgeMode).toBe('economy');
    });

    it('fails to remove a cluster that is not registered', async () => {
      // Act
      const removed = await run('remove', '--id', 'ghost');
      // Assess
      expect(removed).toEqual({
        exitCode: 1,
        stdout: '',
        stderr:
          'error: cluster ghost is not registered in state; nothing removed\n',
      });
    });

    it('refuses invalid options with exit code 2, storing nothing', async () => {
      // Act
      const added = await run(
        'add',
        '--id',
        'prod',
        '--secret-arn',
        'arn:aws:secretsmanager:eu-west-1:123456789012:secret:other'
      );
      // Assess
      expect(added.exitCode).toBe(2);
      expect(added.stderr.split('\n')).toEqual([
        'error: --server URL is required',
        'error: give exactly one of --ca-file PEM, --ca-data BASE64 (TLS is always verified)',
        expect.stringMatching(
          /^error: --secret-arn must name a Secrets Manager secret under dsr\//
        ),
        "See 'npx dsr clusters add --help'.",
        '',
      ]);
      expect((await registry.list()).records).toEqual([]);
    });
  });

  describe('check', () => {
    it('reports a cluster it cannot connect to, with exit code 1', async () => {
      // Prepare
      await addLocal('local');
      deps.connect = async () => {
        throw new ReconcilerError('no cluster in unit tests');
      };
      // Act
      const text = await run('check', '--id', 'local');
      const json = await run('check', '--json');
      // Assess
      expect(text.exitCode).toBe(1);
      expect(text.stdout.split('\n')).toEqual([
        'cluster local (https://10.0.0.1:6443)',
        '  FAIL  cannot connect: no cluster in unit tests',
        '  note  kubeconfig auth is for local runs only: the deployed functions cannot read this file',
        '  => FAILED',
        '',
      ]);
      expect(json.exitCode).toBe(1);
      expect(JSON.parse(json.stdout)).toEqual({
        ok: false,
        clusters: [
          expect.objectContaining({
            id: 'local',
            ok: false,
            reachable: false,
            problems: ['cannot connect: no cluster in unit tests'],
          }),
        ],
      });
    });

    it('reports a server that does not answer in time, closing the connection', async () => {
      // Prepare
      await addLocal('silent');
      let closed = 0;
      const silent = () => new Promise<never>(() => undefined);
      deps.connect = async () => ({
        probe: {
          version: silent,
          whoAmI: silent,
          canI: silent,
          daemonSetStatusManagers: silent,
        },
        close: () => {
          closed++;
        },
      });
      // Act
      const checked = await run('check', '--id', 'silent', '--timeout', '0.05');
      // Assess
      expect(checked.exitCode).toBe(1);
      expect(checked.stdout).toContain(
        '  FAIL  unreachable: no answer from https://10.0.0.1:6443 within 0.05 s\n'
      );
      expect(closed).toBeGreaterThan(0);
    });

    it('fails for a cluster that is not registered', async () => {
      // Act
      const checked = await run('check', '--id', 'ghost');
      // Assess
      expect(checked).toEqual({
        exitCode: 1,
        stdout: '',
        stderr: 'error: cluster ghost is not registered\n',
      });
    });

    it('fails when no cluster is registered', async () => {
      // Act
      const checked = await run('check');
      // Assess
      expect(checked.exitCode).toBe(1);
      expect(checked.stderr).toBe('error: no clusters registered in state\n');
    });
  });

  describe('usage and failures', () => {
    it('prints the usage on --help', async () => {
      // Act
      const help = await runClustersCli(['--help'], {}, () => deps);
      // Assess
      expect(help.exitCode).toBe(0);
      expect(help.stdout).toMatch(/^usage: npx dsr clusters <command>/);
    });

    it('prints the problem and where the command’s help is for a bad command line', async () => {
      // Act
      const out = await runClustersCli(['list', '--tabel', 't'], {}, () => {
        throw new Error('no deps for a bad command line');
      });
      // Assess
      expect(out).toEqual({
        exitCode: 2,
        stdout: '',
        stderr:
          "error: unknown option --tabel (did you mean --table?)\nSee 'npx dsr clusters list --help'.\n",
      });
    });

    it('prints each invalid record of a failing list', async () => {
      // Prepare
      deps.registry.list = async () => {
        throw new AggregateError(
          [new Error('invalid cluster record x: id …')],
          '1 invalid cluster record(s) in state'
        );
      };
      // Act
      const listed = await run('list');
      // Assess
      expect(listed).toEqual({
        exitCode: 1,
        stdout: '',
        stderr:
          'error: 1 invalid cluster record(s) in state\n  invalid cluster record x: id …\n',
      });
    });

    it('prints an error with its causes', async () => {
      // Prepare
      deps.registry.get = async () => {
        throw new ReconcilerError('DynamoDB get cluster cluster#x failed', {
          cause: new Error('connect ECONNREFUSED 127.0.0.1:8000'),
        });
      };
      // Act
      const removed = await run('remove', '--id', 'x');
      // Assess
      expect(removed.stderr).toBe(
        'error: DynamoDB get cluster cluster#x failed: connect ECONNREFUSED 127.0.0.1:8000\n'
      );
    });
  });
  it('unfences a fenced cluster, asks its bridge to re-sync every DaemonSet (F8), and says whether it was fenced', async () => {
    // Prepare
    await addLocal('prod');
    await ownership.fence('prod', 'kube-controller-manager is running');
    // Act
    const first = await run('unfence', '--id', 'prod');
    const second = await run('unfence', '--id', 'prod');
    // Assess
    expect(first.stdout).toContain(
      'cleared the fence of cluster prod; the reconciler acts on it again and re-syncs every DaemonSet within a minute'
    );
    expect(second.stdout).toContain('cluster prod was not fenced');
    expect(await ownership.getFence('prod')).toBeUndefined();
    await leases.acquire('prod', 'bridge', 60_000);
    expect(
      (await leases.checkpoint('prod', 'bridge', {}, 60_000))
        .resyncRequestedAtMs
    ).toBeTypeOf('number');
  });

  it('unfences one DaemonSet of a cluster with --daemonset, and refuses a malformed one', async () => {
    // Prepare
    await addLocal('prod');
    await ownership.fence(
      'prod/kube-system/agent',
      'another controller',
      3_600_000
    );
    // Act
    const cleared = await run(
      'unfence',
      '--id',
      'prod',
      '--daemonset',
      'kube-system/agent'
    );
    const malformed = await run(
      'unfence',
      '--id',
      'prod',
      '--daemonset',
      'agent'
    );
    // Assess
    expect(cleared.stdout).toContain(
      'cleared the fence of DaemonSet kube-system/agent of cluster prod; the reconciler acts on it again and re-syncs it within a minute'
    );
    expect(await ownership.getFence('prod/kube-system/agent')).toBeUndefined();
    expect(malformed.exitCode).toBe(2);
    expect(malformed.stderr).toContain('--daemonset must be namespace/name');
  });

  it('says FAILED, not OK, for a healthy cluster the reconcilers fenced, the verdict last', async () => {
    // Prepare
    await addLocal('prod', '--skip-check');
    await ownership.fence('prod', 'kube-controller-manager is running');
    deps.connect = async () => ({
      probe: answering(),
      close: () => undefined,
    });
    // Act
    const checked = await run('check', '--id', 'prod');
    // Assess
    const lines = checked.stdout.trimEnd().split('\n');
    expect(checked.exitCode).toBe(1);
    expect(lines.at(-1)).toBe('  => FAILED');
    expect(lines.at(-2)).toMatch(
      /^ {2}FENCED since .*kube-controller-manager is running$/
    );
    expect(checked.stdout).not.toContain('=> OK');
  });

  it('forgets a removed cluster’s bookmarks and fence, so one registered again under its id starts afresh (F11)', async () => {
    // Prepare: the old cluster's bridge stored versions; it was fenced.
    await addLocal('prod');
    await leases.acquire('prod', 'bridge', 60_000);
    await leases.checkpoint('prod', 'bridge', { pods: '9000' }, 60_000);
    await leases.release('prod', 'bridge');
    await ownership.fence('prod', 'kube-controller-manager is running');
    // Act
    const removed = await run('remove', '--id', 'prod');
    // Assess
    expect(removed.exitCode).toBe(0);
    expect(await leases.acquire('prod', 'next', 60_000)).toEqual({});
    expect(await ownership.getFence('prod')).toBeUndefined();
  });

  it('forgets the bookmarks and fence of the cluster an id named before when --replace names another API server, and keeps them for the same one', async () => {
    // Prepare: the old cluster's bridge stored versions; it was fenced.
    await addLocal('prod');
    await leases.acquire('prod', 'bridge', 60_000);
    await leases.checkpoint('prod', 'bridge', { pods: '9000' }, 60_000);
    await leases.release('prod', 'bridge');
    await ownership.fence('prod', 'kube-controller-manager is running');
    // Act
    const sameServer = await addLocal('prod', '--mode', 'economy', '--replace');
    const keptLease = (await leases.peek(['prod'])).get('prod');
    const keptFence = await ownership.getFence('prod');
    const otherCluster = await run(
      'add',
      '--id',
      'prod',
      '--kubeconfig',
      otherServer,
      '--replace'
    );
    // Assess
    expect(sameServer.exitCode).toBe(0);
    expect(sameServer.stdout).not.toContain('forgot');
    expect(keptLease?.checkpointedAtMs).toBeTypeOf('number');
    expect(keptFence).toBeDefined();
    expect(otherCluster.exitCode).toBe(0);
    expect(otherCluster.stdout).toContain(
      'forgot the bookmarks and fence of the cluster prod named before (https://10.0.0.1:6443)'
    );
    expect(await leases.acquire('prod', 'next', 60_000)).toEqual({});
    expect(await ownership.getFence('prod')).toBeUndefined();
  });

  it('deletes a removed cluster’s node index', async () => {
    // Prepare: the old cluster's bridge saved its node index.
    await addLocal('prod');
    await bed.nodeIndex.save('prod', new Map([['n1', {}]]), 'bridge', '7');
    // Act
    const removed = await run('remove', '--id', 'prod');
    // Assess
    expect(removed.exitCode).toBe(0);
    expect(await bed.nodeIndex.load('prod')).toEqual({ nodes: new Map() });
  });

  it('refuses to unfence a cluster that is not registered (a typo)', async () => {
    // Act
    const out = await run('unfence', '--id', 'prdo');
    // Assess
    expect(out).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'error: cluster prdo is not registered\n',
    });
  });
});
