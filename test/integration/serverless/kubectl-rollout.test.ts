/**
 * The kubectl promise for apps/v1 DaemonSets the product reconciles (no
 * DaemonSet controller in the test bed): kubectl's own `rollout status`,
 * `history` (and `--revision`), `undo` (and `--to-revision`, and the
 * "skipped rollback" of the current template) and `restart` work unchanged,
 * because the product writes the status fields, ControllerRevisions and
 * pod labels that kubectl reads, as kube-controller-manager writes them;
 * `get ds` and `describe ds` show its counts and Events.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { reportLogOnFailure } from '../../helpers/failure-report.js';
import { createAgentDaemonSet } from '../../testbed/kube-fixtures.js';
import { isConverged, podUidsByNode } from './cluster-state.js';
import { E2eScenario } from './e2e-scenario.js';
import { eventually } from './stack.js';

const run = promisify(execFile);
const ROLLOUT_TIMEOUT_MS = 90_000;

describe('kubectl rollout on apps/v1 DaemonSets the product reconciles', () => {
  let s: E2eScenario;
  reportLogOnFailure(() => s?.stack?.logger);

  /** Runs kubectl on the test bed; returns its output and exit code. */
  const kubectl = async (
    ...args: string[]
  ): Promise<{ out: string; code: number }> => {
    try {
      const { stdout, stderr } = await run(
        `${inject('binDir')}/kubectl`,
        ['--kubeconfig', inject('kubeconfigPath'), '-n', s.ns, ...args],
        { timeout: ROLLOUT_TIMEOUT_MS }
      );
      return { out: `${stdout}${stderr}`, code: 0 };
    } catch (e) {
      const failed = e as { stdout?: string; stderr?: string; code?: number };
      return {
        out: `${failed.stdout ?? ''}${failed.stderr ?? ''}`,
        code: failed.code ?? -1,
      };
    }
  };
  /** Runs `kubectl rollout <verb> ds/agent <flags>`. */
  const rollout = (verb: string, ...flags: string[]) =>
    kubectl('rollout', verb, 'ds/agent', ...flags);
  const converged = (what: string, image: string) =>
    eventually(
      what,
      () => isConverged(s.admin, s.ns, s.nodes, image),
      ROLLOUT_TIMEOUT_MS
    );

  beforeAll(async () => {
    s = await E2eScenario.start('sls-kubectl', { nodes: 3 });
    await createAgentDaemonSet(s.admin, s.ns, s.selector);
    await converged('initial convergence', 'agent:1');
  });

  afterAll(async () => {
    await s?.close();
  });

  it('get ds shows the counts and describe ds the events, marked as this product’s', async () => {
    // Act
    const get = await kubectl('get', 'ds/agent');
    const describe = await kubectl('describe', 'ds/agent');
    const reporters = await kubectl(
      'get',
      'events',
      '--field-selector',
      'involvedObject.name=agent',
      '-o',
      'jsonpath={.items[*].reportingComponent}'
    );
    // Assess
    expect(get.out).toMatch(
      /NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE\nagent\s+3\s+3\s+3\s+3\s+3\s+/
    );
    // kubectl shows upstream's component; the reporting component is ours.
    expect(describe.out).toMatch(
      /Normal\s+SuccessfulCreate\s+\S+\s+daemonset-controller\s+Created pod: agent-/
    );
    expect([...new Set(reporters.out.split(' '))]).toEqual([
      'serverless-daemonset-reconciler',
    ]);
  });

  it('rollout status waits for a template change and reports it rolled out', async () => {
    // Act
    const set = await kubectl('set', 'image', 'ds/agent', 'c=agent:2');
    const status = await rollout('status', '--timeout=80s');
    // Assess
    expect(set.code).toBe(0);
    expect(status).toEqual({
      code: 0,
      out: expect.stringContaining(
        'daemon set "agent" successfully rolled out'
      ),
    });
    expect(await isConverged(s.admin, s.ns, s.nodes, 'agent:2')).toBe(true);
  });

  it('rollout history lists both revisions, and --revision shows a template', async () => {
    // Act
    const history = await rollout('history');
    const first = await rollout('history', '--revision=1');
    // Assess
    expect(history.code).toBe(0);
    expect(history.out).toMatch(/REVISION\s+CHANGE-CAUSE\s*\n1\s+.*\n2\s+/);
    expect(first.code).toBe(0);
    expect(first.out).toContain('Image:\tagent:1');
  });

  it('rollout undo goes back to the previous template and converges', async () => {
    // Act
    const undo = await rollout('undo');
    await converged('the undone rollout', 'agent:1');
    const history = await rollout('history');
    // Assess: revision 1 became revision 3
    expect(undo).toEqual({
      code: 0,
      out: expect.stringContaining('daemonset.apps/agent rolled back'),
    });
    expect(history.out).toMatch(/\n2\s+.*\n3\s+/);
    expect(history.out).not.toMatch(/\n1\s+/);
  });

  it('rollout undo --to-revision skips the current template and goes to an older one', async () => {
    // Act
    const current = await rollout('undo', '--to-revision=3');
    const older = await rollout('undo', '--to-revision=2');
    await converged('the rollout to revision 2', 'agent:2');
    // Assess
    expect(current).toEqual({
      code: 0,
      out: expect.stringContaining(
        'skipped rollback (current template already matches revision 3)'
      ),
    });
    expect(older.out).toContain('daemonset.apps/agent rolled back');
  });

  it('rollout restart replaces every pod, and rollout status sees it through', async () => {
    // Prepare
    const before = Object.values(await podUidsByNode(s.admin, s.ns)).flat();
    // Act
    const restart = await rollout('restart');
    const status = await rollout('status', '--timeout=80s');
    await converged('the restarted pods', 'agent:2');
    const after = Object.values(await podUidsByNode(s.admin, s.ns)).flat();
    // Assess
    expect(restart.out).toContain('daemonset.apps/agent restarted');
    expect(status.code).toBe(0);
    expect(after).toHaveLength(s.nodes.length);
    expect(after.filter((uid) => before.includes(uid))).toEqual([]);
  });
});
