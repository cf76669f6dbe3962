/**
 * `kubectl dsr get` (`-l`, `-o name|wide|json`, `-w`), `set image` with
 * kubectl's --dry-run, and `plan`/`explain` when the API server rejects the
 * credentials (401) or the identity (403), against the real API server of
 * the test bed: kubectl's output, messages and exit codes.
 */
import { writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { KubeHttp } from '#lib/adapters/kube/client/kube-http.js';
import { openAdvancedDaemonSets } from '#lib/adapters/kube/kube-advanced-daemon-sets.js';
import { humanDuration } from '#lib/cli/daemon-set-table.js';
import type { PluginDeps } from '#lib/cli/plugin/plugin-deps.js';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import {
  advancedDaemonSetsPath,
  ensureAdvancedDaemonSetCrd,
} from '../testbed/advanced-daemonset-crd.js';
import { createNamespace, deleteNamespace } from '../testbed/kube-fixtures.js';
import {
  createReconcilerIdentity,
  type ReconcilerIdentity,
} from './reconciler-identity.js';
import { recordingPlugin } from './serverless/recording-plugin.js';
import { eventually } from './serverless/stack.js';
import { adminHttp } from './sync-loop.js';

const HEADER =
  'NAME    DESIRED   CURRENT   READY   UP-TO-DATE   AVAILABLE   PARTITION   PAUSED   PODS-BY-REVISION   AGE';
/** What `now` is, after the objects' creation (so AGE is known). */
const AGE_MS = 65_000;

describe('kubectl dsr get, set image and read errors (on the real API server)', () => {
  const ns = `plugin-get-${Date.now().toString(36)}`;
  let admin: KubeHttp;
  let nobody: ReconcilerIdentity;
  let createdMs = 0;
  const written: string[] = [];
  const deps = (over: Partial<PluginDeps> = {}): PluginDeps => ({
    open: (t) =>
      openAdvancedDaemonSets({
        kubeconfig: t.kubeconfig ?? inject('kubeconfigPath'),
      }),
    now: () => createdMs + AGE_MS,
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    write: (text) => written.push(text),
    ...over,
  });
  const dsr = (...argv: string[]) => runPlugin([...argv, '-n', ns], deps());
  const create = (name: string, labels: Record<string, string>) =>
    admin.request<DaemonSet>('create ads', 'POST', advancedDaemonSetsPath(ns), {
      body: JSON.stringify({
        apiVersion: 'apps.dsr.dev/v1beta1',
        kind: 'AdvancedDaemonSet',
        metadata: { name, labels },
        spec: {
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: {
              initContainers: [{ name: 'init', image: 'init:1' }],
              containers: [
                { name: 'agent', image: 'agent:1' },
                { name: 'sidecar', image: 'sidecar:1' },
              ],
            },
          },
        },
      }),
    });
  const read = (name: string) =>
    admin.request<DaemonSet>(
      'get ads',
      'GET',
      `${advancedDaemonSetsPath(ns)}/${name}`
    );
  const images = async (name: string) => {
    const spec = (await read(name)).spec?.template.spec;
    return [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])].map(
      (c) => `${c.name}=${c.image}`
    );
  };

  beforeAll(async () => {
    admin = adminHttp();
    await ensureAdvancedDaemonSetCrd(admin);
    await createNamespace(admin, ns);
    const a = await create('agent', { tier: 'a' });
    await create('logger', { tier: 'b' });
    // Only agent's AGE is printed.
    createdMs = Date.parse(a.metadata?.creationTimestamp ?? '');
    nobody = await createReconcilerIdentity(admin, ns, {
      metadata: { name: 'nothing' },
      rules: [],
    });
  });

  afterAll(async () => {
    await nobody?.remove();
    await deleteNamespace(admin, ns);
  });

  it('filters by -l and prints -o name and -o wide as kubectl does', async () => {
    // Act
    const names = await dsr('get', '-o', 'name');
    const selected = await dsr('get', '-l', 'tier=a', '-o', 'wide');
    const none = await dsr('get', '-l', 'tier=z');
    // Assess
    const age = humanDuration(AGE_MS);
    expect(names).toEqual({
      exitCode: 0,
      stdout:
        'advanceddaemonset.apps.dsr.dev/agent\nadvanceddaemonset.apps.dsr.dev/logger\n',
      stderr: '',
    });
    expect(selected).toEqual({
      exitCode: 0,
      stdout: [
        `${HEADER}   CONTAINERS      IMAGES              SELECTOR`,
        `agent   0         0         0       0            0           0           false    <none>             ${age}   agent,sidecar   agent:1,sidecar:1   app=agent`,
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(none).toEqual({
      exitCode: 0,
      stdout: '',
      stderr: `No resources found in ${ns} namespace.\n`,
    });
  });

  it('prints -o json as kubectl: a List, sorted keys, no managedFields', async () => {
    // Act
    const out = await dsr('get', '-l', 'tier=b', '-o', 'json');
    // Assess
    const doc = JSON.parse(out.stdout) as { kind: string; items: DaemonSet[] };
    expect(out.exitCode).toBe(0);
    expect(
      out.stdout.startsWith('{\n    "apiVersion": "v1",\n    "items": [')
    ).toBe(true);
    expect(doc.kind).toBe('List');
    expect(doc.items.map((i) => i.metadata?.name)).toEqual(['logger']);
    expect(doc.items[0]?.metadata?.managedFields).toBeUndefined();
  });

  it('-w prints the table, then a row per change, until interrupted (exit 1)', async () => {
    // Prepare
    const interrupt = new AbortController();
    written.length = 0;
    const run = runPlugin(
      ['get', '-w', '-l', 'tier=a', '-n', ns],
      deps({ signal: interrupt.signal })
    );
    await eventually('the first table', async () => written.length === 1);
    // Act
    await admin.request(
      'patch',
      'PATCH',
      `${advancedDaemonSetsPath(ns)}/agent`,
      {
        body: JSON.stringify({
          spec: { updateStrategy: { rollingUpdate: { partition: 2 } } },
        }),
        contentType: 'application/merge-patch+json',
      }
    );
    await eventually('the changed row', async () => written.length === 2);
    interrupt.abort();
    const out = await run;
    // Assess
    const age = humanDuration(AGE_MS);
    expect(out).toEqual({ exitCode: 1, stdout: '', stderr: '' });
    expect(written).toEqual([
      `${HEADER}\nagent   0         0         0       0            0           0           false    <none>             ${age}\n`,
      `agent   0         0         0       0            0           2           false    <none>             ${age}\n`,
    ]);
  });

  it('-w on an empty list prints the header with the first object', async () => {
    // Prepare
    const interrupt = new AbortController();
    written.length = 0;
    const run = runPlugin(
      ['get', '-w', '-l', 'tier=c', '-n', ns],
      deps({ signal: interrupt.signal })
    );
    await new Promise((r) => setTimeout(r, 500));
    // Act
    const created = await create('cache', { tier: 'c' });
    await eventually('the new row', async () => written.length > 0);
    interrupt.abort();
    const out = await run;
    // Assess
    const age = humanDuration(
      createdMs + AGE_MS - Date.parse(created.metadata?.creationTimestamp ?? '')
    );
    expect(out.exitCode).toBe(1);
    expect(written.join('')).toBe(
      `${HEADER}\ncache   0         0         0       0            0           0           false    <none>             ${age}\n`
    );
  });

  it('set image updates the named container (an init container too), and nothing when unchanged', async () => {
    // Act
    const one = await dsr('set', 'image', 'advds/agent', 'agent=agent:2');
    const init = await dsr('set', 'image', 'agent', 'init=init:2');
    const same = await dsr('set', 'image', 'advds/agent', 'agent=agent:2');
    const missing = await dsr('set', 'image', 'advds/agent', 'nope=x:1');
    const absent = await dsr('set', 'image', 'advds/gone', 'agent=x:1');
    // Assess
    expect(one).toEqual({
      exitCode: 0,
      stdout: 'advanceddaemonset.apps.dsr.dev/agent image updated\n',
      stderr: '',
    });
    expect(init.stdout).toBe(
      'advanceddaemonset.apps.dsr.dev/agent image updated\n'
    );
    expect(same).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    expect(missing).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'error: unable to find container named "nope"\n',
    });
    expect(absent).toEqual({
      exitCode: 1,
      stdout: '',
      stderr:
        'Error from server (NotFound): advanceddaemonset.apps.dsr.dev "gone" not found\n',
    });
    expect(await images('agent')).toEqual([
      'init=init:2',
      'agent=agent:2',
      'sidecar=sidecar:1',
    ]);
  });

  it('set image honours --dry-run=client (no write) and =server (one dryRun=All write)', async () => {
    // Prepare
    const plugin = await recordingPlugin(inject('kubeconfigPath'));
    const before = await images('logger');
    const from = plugin.sent.length;
    // Act
    const client = await runPlugin(
      ['set', 'image', 'advds/logger', '*=all:9', '--dry-run=client', '-n', ns],
      plugin.deps
    );
    const mid = plugin.sent.length;
    const server = await runPlugin(
      ['set', 'image', 'advds/logger', '*=all:9', '--dry-run=server', '-n', ns],
      plugin.deps
    );
    // Assess
    expect(client.exitCode).toBe(0);
    expect(client.stdout).toMatch(
      /^advanceddaemonset\.apps\.dsr\.dev\/logger image updated \(dry run\)\n\[/
    );
    expect(
      plugin.sent.slice(from, mid).filter((r) => r.method !== 'GET')
    ).toEqual([]);
    expect(server).toEqual({
      exitCode: 0,
      stdout:
        'advanceddaemonset.apps.dsr.dev/logger image updated (server dry run)\n',
      stderr: '',
    });
    expect(plugin.writesSince(mid).map((w) => w.dryRun)).toEqual(['All']);
    expect(await images('logger')).toEqual(before);
  });

  it('plan and explain report a 403 and a 401 as kubectl does, not NotFound', async () => {
    // Prepare
    const kc = new KubeConfig();
    kc.loadFromFile(nobody.kubeconfigPath);
    const user = kc.users[0];
    if (user === undefined) throw new Error('no user');
    kc.users = [{ ...user, token: 'not-a-token' }];
    const dir = await mkdtemp(path.join(tmpdir(), 'dsr-401-'));
    const bad = path.join(dir, 'kubeconfig');
    writeFileSync(bad, kc.exportConfig(), { mode: 0o600 });
    // Act
    const forbidden = await dsr(
      'plan',
      'advds/agent',
      '--kubeconfig',
      nobody.kubeconfigPath
    );
    const explain = await dsr(
      'explain',
      'node',
      'n1',
      '--ds',
      'advds/agent',
      '--kubeconfig',
      nobody.kubeconfigPath
    );
    const unauthorized = await dsr('plan', 'advds/agent', '--kubeconfig', bad);
    // Assess
    const forbiddenLine = `Error from server (Forbidden): advanceddaemonsets.apps.dsr.dev "agent" is forbidden: User "system:serviceaccount:${ns}:reconciler" cannot get resource "advanceddaemonsets" in API group "apps.dsr.dev" in the namespace "${ns}"\n`;
    expect(forbidden).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: forbiddenLine,
    });
    expect(explain).toEqual({ exitCode: 1, stdout: '', stderr: forbiddenLine });
    expect(unauthorized).toEqual({
      exitCode: 1,
      stdout: '',
      stderr: 'error: You must be logged in to the server (Unauthorized)\n',
    });
  });
});
