/**
 * `kubectl dsr … --dry-run` against the real API server: every verb that
 * writes sends nothing under `client` (and prints what it would send), and
 * under `server` sends only writes that carry dryRun=All, so the object's
 * spec stays as it was. The verbs that only read refuse the flag.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import {
  advancedDaemonSetsPath,
  ensureAdvancedDaemonSetCrd,
} from '../../testbed/advanced-daemonset-crd.js';
import { createAgentAdvancedDaemonSet } from './daemon-set-fixtures.js';
import { E2eScenario } from './e2e-scenario.js';
import { recordingPlugin } from './recording-plugin.js';
import { eventually } from './stack.js';

const RESOURCE = 'advanceddaemonset.apps.dsr.dev/agent';

describe('kubectl dsr --dry-run (each verb that writes)', () => {
  let s: E2eScenario;
  let plugin: Awaited<ReturnType<typeof recordingPlugin>>;
  reportLogOnFailure(() => s?.stack?.logger);
  const kubectlDsr = (...argv: string[]) =>
    runPlugin([...argv, '-n', s.ns], plugin.deps);
  const get = () =>
    s.admin.request<DaemonSet>(
      'get ads',
      'GET',
      `${advancedDaemonSetsPath(s.ns)}/agent`
    );
  const specOf = async () => {
    const ds = await get();
    return { generation: ds.metadata?.generation, spec: ds.spec };
  };
  const setImage = (image: string) =>
    s.admin.request(
      'patch image',
      'PATCH',
      `${advancedDaemonSetsPath(s.ns)}/agent`,
      {
        body: JSON.stringify({
          spec: { template: { spec: { containers: [{ name: 'c', image }] } } },
        }),
        contentType: 'application/merge-patch+json',
      }
    );

  beforeAll(async () => {
    s = new E2eScenario('sls-dry-run');
    plugin = await recordingPlugin(inject('kubeconfigPath'));
    await ensureAdvancedDaemonSetCrd(s.admin);
    await s.open({ nodes: 2, stack: { ownership: 'apps.dsr.dev/v1beta1' } });
    await createAgentAdvancedDaemonSet(s.admin, s.ns, s.selector, 2);
    // Two revisions, so that undo has one to roll back to.
    await eventually('revision 1', async () => {
      const ds = await get();
      return ds.status?.observedGeneration === 1;
    });
    await setImage('agent:2');
    await eventually('revision 2 rolled out', async () => {
      const ds = await get();
      return (
        ds.status?.observedGeneration === 2 &&
        ds.status.updatedNumberScheduled === 2
      );
    });
  });

  afterAll(async () => {
    await s?.close();
  });

  const verbs = [
    {
      verb: 'rollout undo',
      argv: ['rollout', 'undo', 'advds/agent'],
      done: 'rolled back',
    },
    {
      verb: 'rollout pause',
      argv: ['rollout', 'pause', 'advds/agent'],
      done: 'paused',
    },
    {
      verb: 'rollout restart',
      argv: ['rollout', 'restart', 'advds/agent'],
      done: 'restarted',
    },
    {
      verb: 'set partition',
      argv: ['set', 'partition', 'advds/agent', '1'],
      done: 'partition set to 1',
    },
  ];

  it.each(verbs)(
    '$verb --dry-run=client sends no write and prints the patch',
    async ({ argv, done }) => {
      // Prepare
      const before = await specOf();
      const from = plugin.sent.length;
      // Act
      const out = await kubectlDsr(...argv, '--dry-run=client');
      // Assess
      expect(out).toMatchObject({ exitCode: 0, stderr: '' });
      expect(out.stdout).toMatch(
        new RegExp(`^${RESOURCE} ${done} \\(dry run\\)\\n[[{]`)
      );
      expect(plugin.writesSince(from)).toEqual([]);
      expect(await specOf()).toEqual(before);
    }
  );

  it.each(verbs)(
    '$verb --dry-run=server sends its write with dryRun=All and changes nothing',
    async ({ argv, done }) => {
      // Prepare
      const before = await specOf();
      const from = plugin.sent.length;
      // Act
      const out = await kubectlDsr(...argv, '--dry-run=server');
      // Assess
      expect(out).toEqual({
        exitCode: 0,
        stdout: `${RESOURCE} ${done} (server dry run)\n`,
        stderr: '',
      });
      const writes = plugin.writesSince(from);
      expect(writes).toHaveLength(1);
      expect(writes.every((w) => w.dryRun === 'All')).toBe(true);
      expect(await specOf()).toEqual(before);
    }
  );

  it('rollout resume --dry-run=client and =server leave a paused object paused', async () => {
    // Prepare
    await kubectlDsr('rollout', 'pause', 'advds/agent');
    const before = await specOf();
    const from = plugin.sent.length;
    // Act
    const client = await kubectlDsr(
      'rollout',
      'resume',
      'advds/agent',
      '--dry-run=client'
    );
    const mid = plugin.sent.length;
    const server = await kubectlDsr(
      'rollout',
      'resume',
      'advds/agent',
      '--dry-run=server'
    );
    // Assess
    expect(client.stdout).toMatch(
      new RegExp(`^${RESOURCE} resumed \\(dry run\\)\\n`)
    );
    expect(server.stdout).toBe(`${RESOURCE} resumed (server dry run)\n`);
    expect(
      plugin.sent.slice(from, mid).filter((r) => r.method !== 'GET')
    ).toEqual([]);
    expect(plugin.writesSince(mid).map((w) => w.dryRun)).toEqual(['All']);
    expect(await specOf()).toEqual(before);
    expect(before.spec?.updateStrategy?.rollingUpdate?.paused).toBe(true);
    await kubectlDsr('rollout', 'resume', 'advds/agent');
  });

  it("takes a bare --dry-run as client, with kubectl's warning", async () => {
    // Prepare
    const from = plugin.sent.length;
    // Act
    const out = await kubectlDsr(
      'set',
      'partition',
      'advds/agent',
      '1',
      '--dry-run'
    );
    // Assess
    expect(out.stdout).toMatch(
      new RegExp(`^${RESOURCE} partition set to 1 \\(dry run\\)\\n`)
    );
    expect(out.stderr).toBe(
      'warning: --dry-run is deprecated and can be replaced with --dry-run=client.\n'
    );
    expect(plugin.writesSince(from)).toEqual([]);
  });

  it('refuses --dry-run on the verbs that only read, and a value kubectl does not know', async () => {
    // Act
    const status = await kubectlDsr(
      'rollout',
      'status',
      'advds/agent',
      '--dry-run=server'
    );
    const history = await kubectlDsr(
      'rollout',
      'history',
      'advds/agent',
      '--dry-run=client'
    );
    const bogus = await kubectlDsr(
      'rollout',
      'undo',
      'advds/agent',
      '--dry-run=yes'
    );
    // Assess
    expect(status.stderr).toContain('error: unknown flag: --dry-run');
    expect(history.stderr).toContain('error: unknown flag: --dry-run');
    expect(bogus.stderr).toContain(
      'error: invalid dry-run value (yes). Must be "none", "server", or "client"'
    );
    expect([status, history, bogus].map((o) => o.exitCode)).toEqual([1, 1, 1]);
  });
});
