/**
 * `kubectl dsr` against the real API server, with the product reconciling
 * the AdvancedDaemonSet on the serverless wiring: kubectl's rollout verbs,
 * messages and exit codes for the own kind, which kubectl itself cannot
 * roll.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openAdvancedDaemonSets } from '#lib/adapters/kube/kube-advanced-daemon-sets.js';
import type { PluginDeps } from '#lib/cli/plugin/plugin-deps.js';
import { runPlugin } from '#lib/cli/plugin/run-plugin.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import {
  advancedDaemonSetsPath,
  ensureAdvancedDaemonSetCrd,
} from '../../testbed/advanced-daemonset-crd.js';
import { livePodsOf } from './cluster-state.js';
import { createAgentAdvancedDaemonSet } from './daemon-set-fixtures.js';
import { E2eScenario } from './e2e-scenario.js';
import { eventually } from './stack.js';

describe('kubectl dsr (the kubectl plugin for AdvancedDaemonSets)', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);
  const written: string[] = [];
  const deps: PluginDeps = {
    open: (t) =>
      openAdvancedDaemonSets({
        kubeconfig: t.kubeconfig ?? inject('kubeconfigPath'),
        ...(t.context ? { context: t.context } : {}),
      }),
    now: () => Date.now(),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    write: (text) => written.push(text),
  };
  const kubectlDsr = (...argv: string[]) =>
    runPlugin([...argv, '-n', s.ns], deps);
  const get = () =>
    s.admin.request<DaemonSet>(
      'get ads',
      'GET',
      `${advancedDaemonSetsPath(s.ns)}/agent`
    );

  beforeAll(async () => {
    s = new E2eScenario('sls-plugin');
    await ensureAdvancedDaemonSetCrd(s.admin);
    await s.open({ nodes: 3, stack: { ownership: 'apps.dsr.dev/v1beta1' } });
    await createAgentAdvancedDaemonSet(s.admin, s.ns, s.selector, 3);
  });

  afterAll(async () => {
    await s?.close();
  });

  it('rollout status waits for the rollout and says so as kubectl does', async () => {
    // Act
    const out = await kubectlDsr(
      'rollout',
      'status',
      'advds/agent',
      '--timeout=60s'
    );
    // Assess
    expect(out).toMatchObject({ exitCode: 0, stderr: '' });
    expect(written.at(-1)).toBe('daemon set "agent" successfully rolled out\n');
  });

  it('get shows the kubectl columns and pods per revision', async () => {
    // Act
    const out = await kubectlDsr('get');
    // Assess
    const [header, row] = out.stdout.trim().split('\n');
    expect(header?.split(/\s+/)).toEqual([
      'NAME',
      'DESIRED',
      'CURRENT',
      'READY',
      'UP-TO-DATE',
      'AVAILABLE',
      'PARTITION',
      'PAUSED',
      'PODS-BY-REVISION',
      'AGE',
    ]);
    const cells = row?.split(/\s+/) ?? [];
    expect(cells.slice(0, 8)).toEqual([
      'agent',
      '3',
      '3',
      '3',
      '3',
      '3',
      '0',
      'false',
    ]);
    expect(cells[8]).toMatch(/^[a-z0-9]+=3$/);
  });

  it('pause and resume, refusing a second pause and a restart while paused', async () => {
    // Act
    const paused = await kubectlDsr('rollout', 'pause', 'advds/agent');
    const again = await kubectlDsr('rollout', 'pause', 'advds/agent');
    const restart = await kubectlDsr('rollout', 'restart', 'advds/agent');
    const resumed = await kubectlDsr('rollout', 'resume', 'advds/agent');
    // Assess
    expect(paused).toEqual({
      exitCode: 0,
      stdout: 'advanceddaemonset.apps.dsr.dev/agent paused\n',
      stderr: '',
    });
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toBe(
      'error: advanceddaemonset.apps.dsr.dev "agent" is already paused\n'
    );
    expect(restart.stderr).toBe(
      "error: can't restart paused advanceddaemonset.apps.dsr.dev (run rollout resume first)\n"
    );
    expect(resumed.stdout).toBe(
      'advanceddaemonset.apps.dsr.dev/agent resumed\n'
    );
    expect((await get()).spec?.updateStrategy?.rollingUpdate?.paused).toBe(
      false
    );
  });

  it('set partition holds nodes back; rollout status --watch=false reports the partitioned rollout', async () => {
    // Prepare
    const set = await kubectlDsr('set', 'partition', 'advds/agent', '2');
    await s.admin.request(
      'patch image',
      'PATCH',
      `${advancedDaemonSetsPath(s.ns)}/agent`,
      {
        body: JSON.stringify({
          spec: {
            template: {
              spec: { containers: [{ name: 'c', image: 'agent:2' }] },
            },
          },
        }),
        contentType: 'application/merge-patch+json',
      }
    );
    await eventually('one node updated', async () => {
      const images = (await livePodsOf(s.admin, s.ns, 'agent')).map(
        (p) => p.spec?.containers[0]?.image
      );
      const ds = await get();
      return (
        images.filter((i) => i === 'agent:2').length === 1 &&
        ds.status?.updatedNumberScheduled === 1 &&
        ds.status.observedGeneration === ds.metadata?.generation
      );
    });
    // Act
    const status = await kubectlDsr(
      'rollout',
      'status',
      'advds/agent',
      '--watch=false'
    );
    // Assess
    expect(set.stdout).toBe(
      'advanceddaemonset.apps.dsr.dev/agent partition set to 2\n'
    );
    expect(status.stdout).toBe(
      'partitioned roll out complete: 1 new pods have been updated...\n'
    );
    await kubectlDsr('set', 'partition', 'advds/agent', '0');
    await kubectlDsr('rollout', 'status', 'advds/agent', '--timeout=60s');
  });

  it('rollout history lists the revisions and shows one with --revision', async () => {
    // Act
    const list = await kubectlDsr('rollout', 'history', 'advds/agent');
    const one = await kubectlDsr(
      'rollout',
      'history',
      'advds/agent',
      '--revision=1'
    );
    // Assess
    expect(list.stdout).toBe(
      'advanceddaemonset.apps.dsr.dev/agent \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n'
    );
    expect(one.stdout).toContain('with revision #1\nPod Template:\n');
    expect(one.stdout).toContain('"image": "agent:1"');
  });

  it('rollout undo rolls back to the previous revision, and skips a rollback to the current one', async () => {
    // Act
    const undo = await kubectlDsr('rollout', 'undo', 'advds/agent');
    await kubectlDsr('rollout', 'status', 'advds/agent', '--timeout=60s');
    const images = (await livePodsOf(s.admin, s.ns, 'agent')).map(
      (p) => p.spec?.containers[0]?.image
    );
    const history = await kubectlDsr('rollout', 'history', 'advds/agent');
    const skipped = await kubectlDsr(
      'rollout',
      'undo',
      'advds/agent',
      '--to-revision=3'
    );
    // Assess
    expect(undo.stdout).toBe(
      'advanceddaemonset.apps.dsr.dev/agent rolled back\n'
    );
    expect(images).toEqual(['agent:1', 'agent:1', 'agent:1']);
    expect(history.stdout).toContain('\n2         <none>\n3         <none>\n');
    expect(skipped.stdout).toBe(
      'advanceddaemonset.apps.dsr.dev/agent skipped rollback (current template already matches revision 3)\n'
    );
  });

  it('answers a missing object and a wrong command as kubectl does', async () => {
    // Act
    const missing = await kubectlDsr('rollout', 'status', 'advds/nope');
    const wrong = await kubectlDsr('rollout', 'sideways', 'advds/agent');
    const kind = await kubectlDsr('rollout', 'status', 'deployment/agent');
    // Assess
    expect(missing).toEqual({
      exitCode: 1,
      stdout: '',
      stderr:
        'Error from server (NotFound): advanceddaemonset.apps.dsr.dev "nope" not found\n',
    });
    expect(wrong.exitCode).toBe(1);
    expect(wrong.stderr).toContain('error: unknown command "rollout sideways"');
    expect(kind.stderr).toContain('use advds/NAME');
  });
});
