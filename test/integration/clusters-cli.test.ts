/**
 * The cluster registry CLI against the real control plane and DynamoDB
 * Local: `check` passes for the least-privilege identity, names every denied
 * permission of an identity bound to nothing, and says why a server cannot
 * be reached; list and remove work; the bundled entry runs.
 */

import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { DynamoBridgeLeaseStore } from '#lib/adapters/dynamodb/dynamo-bridge-lease-store.js';
import { DynamoClusterHealthStore } from '#lib/adapters/dynamodb/dynamo-cluster-health-store.js';
import { DynamoClusterRegistry } from '#lib/adapters/dynamodb/dynamo-cluster-registry.js';
import { DynamoNodeIndexStore } from '#lib/adapters/dynamodb/dynamo-node-index-store.js';
import { DynamoOwnershipStore } from '#lib/adapters/dynamodb/dynamo-ownership-store.js';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { ClusterConnector } from '#lib/adapters/kube/kube-cluster-connector.js';
import {
  kubeConfigFromFile,
  serverOfRecord,
} from '#lib/adapters/kube/kube-config-for-cluster.js';
import { systemClock } from '#lib/adapters/system-clock.js';
import type { ClusterCheck } from '#lib/cli/clusters/check-types.js';
import type { ClustersCliDeps } from '#lib/cli/clusters/clusters-commands.js';
import { runClustersCli } from '#lib/cli/clusters/run-clusters-cli.js';
import { kubeconfigYaml } from '../../lib/local-cluster/config-files.js';
import { freePort } from '../../lib/local-cluster/processes.js';
import { createTestTable, type TestTable } from '../helpers/dynamo-table.js';
import { FakeLogger } from '../helpers/fakes/fake-logger.js';
import { selfSignedPem } from '../helpers/self-signed-pem.js';
import { createNamespace, deleteNamespace } from '../testbed/kube-fixtures.js';
import {
  createReconcilerIdentity,
  type ReconcilerIdentity,
} from './reconciler-identity.js';
import { adminHttp } from './sync-loop.js';

const ENTRY = new URL('../../functions/dsr.ts', import.meta.url);

/** The `--json` report of one check. */
interface CheckReport {
  ok: boolean;
  clusters: ClusterCheck[];
}

describe('clusters CLI', () => {
  const ns = `cli-${Date.now().toString(36)}`;
  let admin: KubeHttp;
  let identity: ReconcilerIdentity;
  let table: TestTable;
  let deps: ClustersCliDeps;
  let dir: string;
  let server: string;
  let ca: Buffer;

  /** Runs the CLI on the test table (DynamoDB Local). */
  const cli = (...argv: string[]) =>
    runClustersCli(
      [
        ...argv,
        '--table',
        table.tableName,
        '--endpoint',
        inject('dynamodbEndpoint'),
      ],
      {},
      () => deps
    );

  /** Writes a kubeconfig for `token` at `serverUrl` trusting `caPem`. */
  const kubeconfig = (
    name: string,
    token: string,
    { serverUrl = server, caPem = ca } = {}
  ): string => {
    const file = path.join(dir, name);
    writeFileSync(file, kubeconfigYaml(serverUrl, caPem, token), {
      mode: 0o600,
    });
    return file;
  };

  /**
   * Registers `id` with kubeconfig auth, unchecked (add would refuse the
   * failing ones), and returns its --json check.
   */
  const addAndCheck = async (id: string, file: string) => {
    const added = await cli(
      'add',
      '--id',
      id,
      '--kubeconfig',
      file,
      '--skip-check'
    );
    expect(added.stderr).toBe('');
    const json = await cli('check', '--id', id, '--json', '--timeout', '3');
    const text = await cli('check', '--id', id, '--timeout', '3');
    const report = JSON.parse(json.stdout) as CheckReport;
    // One API server takes one registration: the next test adds its own.
    await cli('remove', '--id', id);
    return { json, text, report, check: report.clusters[0] as ClusterCheck };
  };

  beforeAll(async () => {
    admin = adminHttp();
    await createNamespace(admin, ns);
    identity = await createReconcilerIdentity(admin, ns);
    dir = mkdtempSync(path.join(os.tmpdir(), 'dsr-cli-'));
    const kc = new KubeConfig();
    kc.loadFromFile(inject('kubeconfigPath'));
    server = kc.getCurrentCluster()?.server ?? '';
    ca = Buffer.from(kc.getCurrentCluster()?.caData ?? '', 'base64');
    table = await createTestTable(inject('dynamodbEndpoint'));
    const connector = new ClusterConnector({
      kubeconfigFiles: kubeConfigFromFile,
      clock: systemClock,
      logger: new FakeLogger(),
    });
    deps = {
      registry: new DynamoClusterRegistry({
        client: table.client,
        tableName: table.tableName,
        clock: systemClock,
        cacheTtlMs: 0,
      }),
      ownership: new DynamoOwnershipStore({ ...table, clock: systemClock }),
      health: new DynamoClusterHealthStore({ ...table, clock: systemClock }),
      leases: new DynamoBridgeLeaseStore({ ...table, clock: systemClock }),
      nodeIndex: new DynamoNodeIndexStore({ ...table, clock: systemClock }),
      connect: (record) => connector.connect(record),
      serverOf: serverOfRecord,
      readTextFile: (file) => readFileSync(file, 'utf8'),
    };
  });

  afterAll(async () => {
    await identity?.remove();
    await deleteNamespace(admin, ns);
    admin.close();
    table?.client.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('passes the check of the least-privilege identity, with every permission and the version', async () => {
    // Act
    const { json, text, check } = await addAndCheck(
      'reconciler',
      identity.kubeconfigPath
    );
    // Assess
    expect(json.exitCode).toBe(0);
    expect(check).toMatchObject({
      id: 'reconciler',
      server,
      ok: true,
      reachable: true,
      authenticated: true,
      user: `system:serviceaccount:${ns}:reconciler`,
      missing: [],
      problems: [],
    });
    expect(check.version).toMatch(/^v1\.\d+\.\d+/);
    expect(check.access).toHaveLength(31);
    expect(check.access.every((a) => a.allowed)).toBe(true);
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain(
      `ok    reachable: Kubernetes ${check.version}`
    );
    expect(text.stdout).toContain(
      'ok    RBAC: all 31 permissions of infra/kubernetes/rbac.yaml granted'
    );
    expect(text.stdout).toMatch(/=> OK\n$/);
  });

  it('fails the check of an identity bound to nothing, listing every denied permission', async () => {
    // Prepare
    await admin.request(
      'create sa',
      'POST',
      `/api/v1/namespaces/${ns}/serviceaccounts`,
      {
        body: JSON.stringify({
          apiVersion: 'v1',
          kind: 'ServiceAccount',
          metadata: { name: 'nobody' },
        }),
      }
    );
    const { status } = await admin.request<{ status: { token: string } }>(
      'request token',
      'POST',
      `/api/v1/namespaces/${ns}/serviceaccounts/nobody/token`,
      {
        body: JSON.stringify({
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'TokenRequest',
          spec: { expirationSeconds: 3600 },
        }),
      }
    );
    const file = kubeconfig('nobody', status.token);
    // Act
    const refused = await cli('add', '--id', 'nobody', '--kubeconfig', file);
    const { json, text, check } = await addAndCheck('nobody', file);
    // Assess
    expect(json.exitCode).toBe(1);
    expect(check).toMatchObject({
      ok: false,
      reachable: true,
      authenticated: true,
      user: `system:serviceaccount:${ns}:nobody`,
      problems: [],
    });
    expect(check.missing).toHaveLength(31);
    expect(check.missing).toEqual(
      expect.arrayContaining([
        'list nodes',
        'create pods',
        'update daemonsets.apps/status',
        'create controllerrevisions.apps',
      ])
    );
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toContain(
      'FAIL  RBAC: 31 of 31 permissions denied; missing:'
    );
    expect(text.stdout).toContain('pods: list, watch, create, delete, patch');
    expect(text.stdout).not.toContain(status.token);
    expect(json.stdout).not.toContain(status.token);
    // add ran the same check first, and wrote nothing.
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      'FAIL  RBAC: 31 of 31 permissions denied; missing:'
    );
    expect(refused.stderr).toMatch(
      /=> FAILED\nerror: cluster nobody not registered: its check failed \(--skip-check registers it anyway\)\n$/
    );
  });

  it('says a server that refuses connections is unreachable', async () => {
    // Prepare
    const port = await freePort();
    const file = kubeconfig('refused', 'some-token', {
      serverUrl: `https://127.0.0.1:${port}`,
    });
    // Act
    const { json, text, check } = await addAndCheck('refused', file);
    // Assess
    expect(json.exitCode).toBe(1);
    expect(check).toMatchObject({ ok: false, reachable: false, access: [] });
    expect(check.problems).toEqual([
      `unreachable: TCP: connection to 127.0.0.1:${port} refused`,
    ]);
    expect(text.stdout).toContain(
      `FAIL  unreachable: TCP: connection to 127.0.0.1:${port} refused`
    );
  });

  it('says a server whose certificate another CA signed fails TLS', async () => {
    // Prepare
    const file = kubeconfig('other-ca', 'some-token', {
      caPem: Buffer.from(selfSignedPem('other-ca')),
    });
    // Act
    const { json, check } = await addAndCheck('other-ca', file);
    // Assess
    expect(json.exitCode).toBe(1);
    expect(check.reachable).toBe(false);
    expect(check.problems).toEqual([
      expect.stringMatching(
        /^unreachable: TLS: certificate not signed by the registered CA \(/
      ),
    ]);
  });

  it('says the credentials were rejected for a token the server does not know', async () => {
    // Act
    const { json, check } = await addAndCheck(
      'bad-token',
      kubeconfig('bad-token', 'not-a-token-of-this-cluster')
    );
    // Assess
    expect(json.exitCode).toBe(1);
    expect(check).toMatchObject({
      reachable: true,
      authenticated: false,
      problems: ['authentication: credentials rejected (401)'],
    });
    expect(json.stdout).not.toContain('not-a-token-of-this-cluster');
  });

  it('lists the clusters and removes one', async () => {
    // Prepare
    await cli(
      'add',
      '--id',
      'to-remove',
      '--kubeconfig',
      identity.kubeconfigPath
    );
    // Act
    const before = await cli('list');
    const removed = await cli('remove', '--id', 'to-remove');
    const after = (
      JSON.parse((await cli('list', '--json')).stdout) as {
        clusters: { id: string }[];
      }
    ).clusters;
    const again = await cli('remove', '--id', 'to-remove');
    // Assess
    expect(before.exitCode).toBe(0);
    expect(before.stdout).toMatch(
      /^ID +SERVER +MODE +STATUS +BUDGET +LAST-BRIDGED +AUTH\n/
    );
    expect(before.stdout).toMatch(
      new RegExp(
        `\\nto-remove +${server.replace(/\./g, '\\.')} +watch +Ready +400/800 +never +kubeconfig\\n`
      )
    );
    expect(removed).toMatchObject({
      exitCode: 0,
      stdout: `removed cluster to-remove (${server}) from ${table.tableName}, with its bookmarks and fence\n`,
    });
    expect(after.map((c) => c.id)).not.toContain('to-remove');
    expect(again.exitCode).toBe(1);
  });

  it('runs as the bundled `dsr clusters` entry', async () => {
    // Prepare
    const outfile = path.join(dir, 'dsr.mjs');
    await build({
      entryPoints: [ENTRY.pathname],
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node22',
      logLevel: 'warning',
      banner: {
        js: "import{createRequire as __cr}from'node:module';const require=__cr(import.meta.url);",
      },
      outfile,
    });
    await cli(
      'add',
      '--id',
      'bundled',
      '--kubeconfig',
      identity.kubeconfigPath
    );
    const run = (...argv: string[]) =>
      promisify(execFile)(
        process.execPath,
        [
          outfile,
          'clusters',
          ...argv,
          '--table',
          table.tableName,
          '--endpoint',
          inject('dynamodbEndpoint'),
          '--region',
          'us-east-1',
        ],
        {
          env: {
            ...process.env,
            AWS_ACCESS_KEY_ID: 'test',
            AWS_SECRET_ACCESS_KEY: 'test',
          },
        }
      );
    // Act
    const listed = await run('list', '--json');
    const checked = await run('check', '--id', 'bundled');
    const usage = await run('lsit').catch(
      (e: { code: number; stderr: string }) => e
    );
    // Assess
    expect(
      (
        JSON.parse(listed.stdout) as { clusters: { id: string }[] }
      ).clusters.map((c) => c.id)
    ).toContain('bundled');
    expect(checked.stdout).toMatch(/=> OK\n$/);
    expect(usage).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^error: unknown command "lsit"/),
    });
  });
});
