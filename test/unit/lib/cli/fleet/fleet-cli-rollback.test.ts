import { beforeEach, describe, expect, it } from 'vitest';
import { KubeApiError } from '#lib/errors.js';
import type { MemberTemplates, WriteOptions } from '#lib/ports/index.js';
import type { DaemonSetKind } from '#lib/reconcile/k8s/daemon-set-kind.js';
import type {
  ControllerRevision,
  DaemonSet,
  PodTemplateSpec,
} from '#lib/reconcile/k8s/types.js';
import { computeHash, getPatch } from '#lib/reconcile/revision-hash.js';
import {
  canaryBaking,
  createFleetCliBed,
  type FleetCliBed,
  registered,
  T0,
} from '#test/helpers/fleet-cli-bed.js';
import { selfSignedPem } from '#test/helpers/self-signed-pem.js';

/** node-agent as its template is with `image`. */
const agent = (image: string, resourceVersion = '41'): DaemonSet => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: {
    namespace: 'kube-system',
    name: 'node-agent',
    uid: 'uid-1',
    resourceVersion,
  },
  spec: {
    selector: { matchLabels: { app: 'node-agent' } },
    template: {
      metadata: { labels: { app: 'node-agent' } },
      spec: { containers: [{ name: 'agent', image }] },
    },
  },
});

/** The ControllerRevision the controller keeps of `ds`'s template. */
const revisionOf = (ds: DaemonSet, revision: number): ControllerRevision => {
  const hash = computeHash(ds);
  return {
    metadata: {
      name: `node-agent-${hash}`,
      labels: { 'controller-revision-hash': hash },
    },
    data: JSON.parse(getPatch(ds)),
    revision,
  };
};

const CA_DATA = Buffer.from(selfSignedPem()).toString('base64');

const STABLE = computeHash(agent('agent:1'));
const TARGET = computeHash(agent('agent:2'));

/** One member cluster's templates, recording what was asked of them. */
class FakeMemberTemplates implements MemberTemplates {
  ds: DaemonSet | undefined = agent('agent:2');
  revisionsKept = [
    revisionOf(agent('agent:1'), 1),
    revisionOf(agent('agent:2'), 2),
  ];
  writes: unknown[][] = [];
  failWrite: Error | undefined;
  closed = 0;

  close() {
    this.closed += 1;
  }

  async find(_kind: DaemonSetKind, _namespace: string, _name: string) {
    return this.ds;
  }

  async revisions(_ds: DaemonSet) {
    return this.revisionsKept;
  }

  async replaceTemplateAt(
    kind: DaemonSetKind,
    namespace: string,
    name: string,
    template: PodTemplateSpec,
    resourceVersion: string,
    options?: WriteOptions
  ) {
    if (this.failWrite) throw this.failWrite;
    this.writes.push([
      kind.resource,
      namespace,
      name,
      template,
      resourceVersion,
      options,
    ]);
    return {
      ...agent('agent:1'),
      spec: { ...agent('agent:1').spec, template },
    } as DaemonSet;
  }
}

describe('dsr fleet rollback', () => {
  let bed: FleetCliBed;
  let member: FakeMemberTemplates;
  let opened: { kubeconfig?: string; context?: string }[];
  /** The servers the registered kubeconfig files and the operator's name. */
  let servers: { registered?: string; operator?: string };

  beforeEach(async () => {
    bed = createFleetCliBed();
    member = new FakeMemberTemplates();
    opened = [];
    servers = {};
    bed.deps.openMember = (target) => {
      opened.push(target);
      const server = target.kubeconfig?.startsWith('/tmp/')
        ? servers.registered
        : servers.operator;
      return { api: member, ...(server === undefined ? {} : { server }) };
    };
    await bed.applyExample();
    await bed.store.saveState(
      'node-agent',
      {
        ...canaryBaking(),
        phase: 'Halted',
        stable: { 'prod-eu-1': STABLE, 'prod-eu-2': STABLE },
        target: { 'prod-eu-1': TARGET, 'prod-eu-2': TARGET },
      },
      [],
      T0
    );
  });

  /** Runs `rollback node-agent prod-eu-1 --context eu-1` and more. */
  const rollbackEu1 = (...more: string[]) =>
    bed.run(
      'rollback',
      'node-agent',
      'prod-eu-1',
      '--context',
      'eu-1',
      ...more
    );

  const notes = async () =>
    (await bed.store.get('node-agent'))?.history.map((h) => h.note) ?? [];

  it('writes the stable revision’s template back, testing the version it read', async () => {
    // Act
    const out = await rollbackEu1();

    // Assess
    expect(out).toEqual({
      exitCode: 0,
      stdout: `fleetrolloutpolicy/node-agent cluster prod-eu-1 rolled back to the stable revision ${STABLE}\n`,
      stderr: '',
    });
    expect(opened).toEqual([
      { kubeconfig: '/tmp/prod-eu-1.kubeconfig' },
      { context: 'eu-1' },
    ]);
    expect(member.writes).toEqual([
      [
        'daemonsets',
        'kube-system',
        'node-agent',
        agent('agent:1').spec?.template,
        '41',
        { dryRun: false },
      ],
    ]);
    expect(await notes()).toContain(
      `prod-eu-1: template rolled back to the stable revision ${STABLE} (dsr fleet rollback)`
    );
    expect(bed.wakes).toEqual(['node-agent']);
    expect(member.closed).toBe(2);
  });

  it('runs on the current context of the operator’s kubeconfig without --context', async () => {
    // Act
    const out = await bed.run(
      'rollback',
      'node-agent',
      'prod-eu-2',
      '-o',
      'json'
    );

    // Assess
    expect(out.exitCode).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({
      cluster: 'prod-eu-2',
      revision: STABLE,
      changed: true,
    });
    expect(opened).toEqual([{ kubeconfig: '/tmp/prod-eu-2.kubeconfig' }, {}]);
  });

  it('sends a server-side dry run and stores nothing with --dry-run', async () => {
    // Act
    const out = await rollbackEu1('--dry-run');

    // Assess
    expect(out.stdout).toContain('(server dry run)');
    expect(member.writes[0]?.[5]).toEqual({ dryRun: true });
    expect(await notes()).toEqual([]);
    expect(bed.wakes).toEqual([]);
  });

  it('says so and writes nothing when the template already is the stable one', async () => {
    // Prepare
    member.ds = agent('agent:1');

    // Act
    const out = await rollbackEu1();

    // Assess
    expect(out).toEqual({
      exitCode: 0,
      stdout: `fleetrolloutpolicy/node-agent cluster prod-eu-1 already has the template of the stable revision ${STABLE}\n`,
      stderr: '',
    });
    expect(member.writes).toEqual([]);
  });

  it.each([
    [
      'a cluster with no stable revision pinned',
      ['prod-us-1', '--context', 'us-1'],
      () => {},
      'error: fleetrolloutpolicy node-agent has no stable revision pinned for cluster prod-us-1 (pinned: prod-eu-1, prod-eu-2)\n',
    ],
    [
      'a cluster no longer registered',
      ['prod-eu-1', '--context', 'eu-1'],
      (b: FleetCliBed) => b.registry.remove('prod-eu-1'),
      'error: cluster prod-eu-1 is not registered\n',
    ],
  ])('refuses %s, reading nothing of it', async (_, args, prepare, stderr) => {
    // Prepare
    prepare(bed);

    // Act
    const out = await bed.run('rollback', 'node-agent', ...args);

    // Assess
    expect(out).toEqual({ exitCode: 1, stdout: '', stderr });
    expect(opened).toEqual([]);
  });

  it.each([
    [
      'its registered endpoint',
      (b: FleetCliBed) => {
        b.registry.put({
          ...registered('prod-eu-1', { tier: 'prod', region: 'eu' }),
          endpoint: 'https://eu-1.example:6443',
          caData: CA_DATA,
          auth: { type: 'eks', clusterName: 'eu-1', region: 'eu-west-1' },
        });
      },
      'https://eu-1.example:6443',
    ],
    [
      'the server of its registered kubeconfig file',
      () => {
        servers.registered = 'https://eu-1.example:6443/';
      },
      'https://eu-1.example:6443/',
    ],
  ])(
    'refuses a context that points at another server than %s',
    async (_, prepare, at) => {
      // Prepare
      prepare(bed);
      servers.operator = 'https://us-1.example:6443/';

      // Act
      const out = await bed.run(
        'rollback',
        'node-agent',
        'prod-eu-1',
        '--context',
        'us-1'
      );

      // Assess
      expect(out.stderr).toBe(
        `error: the context points at https://us-1.example:6443/, but cluster prod-eu-1 is registered at ${at}: name the context of prod-eu-1 with --context\n`
      );
      expect(member.writes).toEqual([]);
    }
  );

  it('writes to a context at the registered server, slash or not', async () => {
    // Prepare
    servers.registered = 'https://eu-1.example:6443';
    servers.operator = 'https://eu-1.example:6443/';

    // Act
    const out = await rollbackEu1();

    // Assess
    expect(out.exitCode).toBe(0);
    expect(member.writes).toHaveLength(1);
  });

  it.each([
    [
      'the DaemonSet is missing',
      (m: FakeMemberTemplates) => {
        m.ds = undefined;
      },
      'error: daemonsets.apps kube-system/node-agent not found in cluster prod-eu-1\n',
    ],
    [
      'the cluster’s history lost the stable revision',
      (m: FakeMemberTemplates) => {
        m.revisionsKept = m.revisionsKept.slice(1);
      },
      `error: cluster prod-eu-1 keeps no ControllerRevision of the stable revision ${STABLE} of daemonsets.apps kube-system/node-agent (it keeps: ${TARGET}); set its template back by hand\n`,
    ],
    [
      'the DaemonSet changed since it was read',
      (m: FakeMemberTemplates) => {
        m.failWrite = new KubeApiError('the test operation failed', {
          reason: 'Invalid',
          statusCode: 422,
        });
      },
      'error: the DaemonSet in cluster prod-eu-1 changed while it was read; nothing was written: run rollback again\n',
    ],
  ])('refuses when %s, writing no history', async (_, prepare, stderr) => {
    // Prepare
    prepare(member);

    // Act
    const out = await rollbackEu1();

    // Assess
    expect(out).toEqual({ exitCode: 1, stdout: '', stderr });
    expect(member.writes).toEqual([]);
    expect(await notes()).toEqual([]);
    expect(member.closed).toBe(2);
  });

  it('says the cluster is rolled back when its history line cannot be written', async () => {
    // Prepare
    bed.store.setControls = async () => {
      throw new Error('throttled');
    };

    // Act
    const out = await rollbackEu1();

    // Assess
    expect(out.exitCode).toBe(1);
    expect(out.stderr).toBe(
      `error: cluster prod-eu-1 is rolled back to ${STABLE}, but its history line was not written (throttled)\n`
    );
    expect(member.writes).toHaveLength(1);
  });

  it('needs NAME and CLUSTER', async () => {
    // Act
    const out = await bed.run('rollback', 'node-agent');

    // Assess
    expect(out.exitCode).toBe(2);
    expect(out.stderr).toContain('rollback needs NAME CLUSTER');
    expect(out.stderr).toContain('npx dsr fleet rollback --help');
  });
});
