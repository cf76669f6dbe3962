/**
 * `kubectl dsr migrate` where it can fail, on the real control plane (the
 * garbage collector, kube-controller-manager's DaemonSet controller and the
 * product for the own kind): a target kind no CRD serves, an admission
 * policy refusing the target, a create refused after its dry run passed,
 * and a hand-over slower than the wait. Each leaves the DaemonSet's pods
 * controlled by a live object, the same pods, and loses nothing.
 */
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { KubeAdvancedDaemonSets } from '#lib/adapters/kube/kube-advanced-daemon-sets.js';
import { migrateDaemonSet } from '#lib/cli/plugin/migrate-daemon-set.js';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';
import {
  ADVANCED_DAEMON_SET,
  NATIVE_DAEMON_SET,
} from '#lib/reconcile/k8s/daemon-set-kind.js';
import type { DaemonSet, Pod } from '#lib/reconcile/k8s/types.js';
import {
  type Component,
  stopProcess,
} from '../../../lib/local-cluster/processes.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import {
  advancedDaemonSetsPath,
  ensureAdvancedDaemonSetCrd,
} from '../../testbed/advanced-daemonset-crd.js';
import { createDaemonSet } from '../../testbed/kube-fixtures.js';
import { startUpstreamDaemonSetController } from '../../testbed/upstream-controller.js';
import {
  REFUSAL,
  refuseAdvancedDaemonSets,
  refuseByWebhook,
} from './admission-policy.js';
import { isDaemonSetConverged, livePodsOf } from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { limitedMigrator } from './limited-migrator.js';
import { recordingPlugin } from './recording-plugin.js';
import { eventually } from './stack.js';

describe('kubectl dsr migrate never loses a DaemonSet', () => {
  let s: E2eScenario;
  let upstream: Component | undefined;
  let plugin: Awaited<ReturnType<typeof recordingPlugin>>;
  reportLogOnFailure(() => s?.stack?.logger);
  const dsPath = (name: string) =>
    `/apis/apps/v1/namespaces/${s.ns}/daemonsets/${name}`;
  const findDs = (name: string) =>
    s.admin
      .request<DaemonSet>('get ds', 'GET', dsPath(name))
      .catch(() => undefined);
  const findAds = (name: string) =>
    s.admin
      .request<DaemonSet>(
        'get ads',
        'GET',
        `${advancedDaemonSetsPath(s.ns)}/${name}`
      )
      .catch(() => undefined);
  /** Returns each live pod's uid and the uid of its controller. */
  const podsOf = async (name: string) =>
    Object.fromEntries(
      (await livePodsOf(s.admin, s.ns, name)).map((p: Pod) => [
        p.metadata?.uid ?? '',
        p.metadata?.ownerReferences?.find((r) => r.controller)?.uid ?? '',
      ])
    );
  /** Creates apps/v1 DaemonSet `name` and waits until it runs everywhere. */
  const converged = async (name: string) => {
    await createDaemonSet(s.admin, s.ns, name, s.selector);
    await eventually(
      `kube-controller-manager converged ${name}`,
      () => isDaemonSetConverged(s.admin, s.ns, name, s.nodes),
      60_000
    );
    return (await findDs(name)) as DaemonSet;
  };
  const migrate = (name: string, ...flags: string[]) =>
    runPlugin(['migrate', `ds/${name}`, '-n', s.ns, ...flags], plugin.deps);

  beforeAll(async () => {
    s = new E2eScenario('sls-migrate-fail');
    plugin = await recordingPlugin(inject('kubeconfigPath'));
    await ensureAdvancedDaemonSetCrd(s.admin);
    await s.open({ nodes: 3, stack: { ownership: 'apps.dsr.dev/v1beta1' } });
    upstream = await startUpstreamDaemonSetController({
      binDir: inject('binDir'),
      kubeconfigPath: inject('kubeconfigPath'),
      logDir: inject('logDir'),
    });
  });

  afterAll(async () => {
    if (upstream) await stopProcess(upstream);
    await s?.close();
  });

  it('refuses a target kind that no CRD serves, naming the CRD, before any write', async () => {
    // Prepare
    const ds = await converged('no-crd');
    const pods = await podsOf('no-crd');
    const { api } = plugin.deps.open({});
    const from = plugin.sent.length;
    // Act
    const run = migrateDaemonSet(
      api as KubeAdvancedDaemonSets,
      NATIVE_DAEMON_SET,
      s.ns,
      'no-crd',
      {
        dryRun: 'none',
        timeoutMs: 10_000,
        now: Date.now,
        sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        save: plugin.deps.save ?? (async () => ''),
        target: { ...ADVANCED_DAEMON_SET, group: 'absent.dsr.dev' },
      }
    );
    // Assess
    await expect(run).rejects.toThrow(
      'the server doesn\'t have a resource type "advanceddaemonsets" in absent.dsr.dev/v1beta1: install the CRD advanceddaemonsets.absent.dsr.dev first; nothing was changed'
    );
    expect(plugin.writesSince(from)).toEqual([]);
    expect((await findDs('no-crd'))?.metadata).toMatchObject({
      uid: ds.metadata?.uid,
    });
    expect(
      (await findDs('no-crd'))?.metadata?.deletionTimestamp
    ).toBeUndefined();
    expect(await podsOf('no-crd')).toEqual(pods);
  });

  it.each([
    {
      by: 'a ValidatingAdmissionPolicy',
      name: 'refused',
      says: REFUSAL,
      install: () => refuseAdvancedDaemonSets(s.admin, s.ns, 'always'),
    },
    {
      by: 'a validating webhook',
      name: 'hooked',
      says: REFUSAL,
      install: () => refuseByWebhook(s.admin, s.ns),
    },
    {
      by: 'RBAC (delete allowed, create forbidden)',
      name: 'rbac',
      says: 'cannot create resource "advanceddaemonsets"',
      install: () => limitedMigrator(s.admin, s.ns),
    },
  ])(
    'refuses, before any write, a target that $by refuses',
    async ({ name, says, install }) => {
      // Prepare
      const ds = await converged(name);
      const pods = await podsOf(name);
      const refusal: { remove(): Promise<void>; plugin?: typeof plugin } =
        await install();
      const as = refusal.plugin ?? plugin;
      const from = as.sent.length;
      try {
        // Act
        const out = await runPlugin(
          ['migrate', `ds/${name}`, '-n', s.ns],
          as.deps
        );
        // Assess
        expect(out.stderr).toContain(
          `error: daemonset.apps/${name} → advanceddaemonset.apps.dsr.dev/${name}: the server refused to create advanceddaemonset.apps.dsr.dev/${name} (dry run); nothing was changed`
        );
        expect(out.stderr).toContain(says);
        expect(as.writesSince(from).filter((w) => w.dryRun !== 'All')).toEqual(
          []
        );
        expect((await findDs(name))?.metadata?.uid).toBe(ds.metadata?.uid);
        expect(await findAds(name)).toBeUndefined();
        expect(await podsOf(name)).toEqual(pods);
      } finally {
        await refusal.remove();
      }
    }
  );

  it('recreates the source when the create is refused after its dry run passed; its controller adopts the same pods', async () => {
    // Prepare
    const ds = await converged('late-refusal');
    const before = Object.keys(await podsOf('late-refusal'));
    const policy = await refuseAdvancedDaemonSets(s.admin, s.ns, 'real');
    try {
      // Act
      const out = await migrate('late-refusal');
      // Assess
      expect(out.exitCode).toBe(1);
      expect(out.stderr).toContain(
        'daemonset.apps/late-refusal was recreated and its controller adopts the pods back'
      );
      const again = await findDs('late-refusal');
      expect(again?.metadata?.uid).not.toBe(ds.metadata?.uid);
      await eventually(
        'the recreated DaemonSet adopted every pod',
        async () => {
          const pods = await podsOf('late-refusal');
          return Object.values(pods).every((o) => o === again?.metadata?.uid);
        }
      );
      expect(Object.keys(await podsOf('late-refusal')).sort()).toEqual(
        before.sort()
      );
      expect(await findAds('late-refusal')).toBeUndefined();
    } finally {
      await policy.remove();
    }
  });

  it('leaves both objects when the hand-over outlasts the wait, and a re-run finishes it with the same pods', async () => {
    // Prepare
    const ds = await converged('slow');
    const before = Object.keys(await podsOf('slow'));
    // Act
    const first = await migrate('slow', '--timeout=1ms');
    const between = await findDs('slow');
    const ads = await findAds('slow');
    await eventually('the AdvancedDaemonSet adopted every pod', async () => {
      const pods = await podsOf('slow');
      return Object.values(pods).every((o) => o === ads?.metadata?.uid);
    });
    const second = await migrate('slow');
    // Assess
    expect(first.exitCode).toBe(1);
    expect(first.stderr).toContain('run the migration again to finish');
    expect(between?.metadata?.uid).toBe(ds.metadata?.uid);
    expect(between?.metadata?.finalizers).toContain('apps.dsr.dev/migrate');
    expect(ads).toBeDefined();
    expect(second).toMatchObject({ exitCode: 0, stderr: '' });
    expect(second.stdout).toContain(
      'resuming: daemonset.apps/slow is terminating with apps.dsr.dev/migrate'
    );
    await eventually('the source is gone', async () => !(await findDs('slow')));
    expect(Object.keys(await podsOf('slow')).sort()).toEqual(before.sort());
  });

  it('saves the target object and the source before it deletes anything, and says where', async () => {
    // Prepare
    await converged('saved');
    // Act
    const out = await migrate('saved');
    // Assess
    expect(out.exitCode).toBe(0);
    const [, target, source] =
      /saved advanceddaemonset.apps.dsr.dev\/saved to (\S+), and daemonset.apps\/saved to (\S+)\n/.exec(
        out.stdout
      ) ?? [];
    expect(JSON.parse(await readFile(target ?? '', 'utf8'))).toMatchObject({
      kind: 'AdvancedDaemonSet',
      metadata: { name: 'saved', namespace: s.ns },
    });
    const copy = JSON.parse(await readFile(source ?? '', 'utf8'));
    expect(copy).toMatchObject({
      kind: 'DaemonSet',
      metadata: { name: 'saved' },
    });
    expect(copy.metadata.uid).toBeUndefined();
  });

  it('--dry-run=server sends every write with dryRun=All and changes nothing; =client sends none', async () => {
    // Prepare
    const ds = await converged('dry');
    const pods = await podsOf('dry');
    const from = plugin.sent.length;
    // Act
    const server = await migrate('dry', '--dry-run=server');
    const mid = plugin.sent.length;
    const client = await migrate('dry', '--dry-run=client');
    // Assess
    expect(server.stdout).toContain(
      'daemonset.apps/dry → advanceddaemonset.apps.dsr.dev/dry (server dry run): the server accepts every write of the migration; nothing was changed'
    );
    const writes = plugin.sent
      .slice(from, mid)
      .filter((w) => w.method !== 'GET');
    expect(writes.map((w) => w.method).sort()).toEqual([
      'DELETE',
      'PATCH',
      'PATCH',
      'PATCH',
      'POST',
    ]);
    expect(writes.every((w) => w.dryRun === 'All')).toBe(true);
    expect(client.stdout).toContain('(dry run): would orphan');
    expect(plugin.writesSince(mid)).toEqual([]);
    expect((await findDs('dry'))?.metadata?.uid).toBe(ds.metadata?.uid);
    expect((await findDs('dry'))?.metadata?.finalizers).toBeUndefined();
    expect(await findAds('dry')).toBeUndefined();
    expect(await podsOf('dry')).toEqual(pods);
  });
});
