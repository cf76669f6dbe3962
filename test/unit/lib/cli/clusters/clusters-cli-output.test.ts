/**
 * The clusters CLI's output formats: `list` as a table (`--no-headers`,
 * `-o wide`, with the age of the last bridge checkpoint), JSON and YAML
 * documents, and failures in the format asked for, on stderr, with the
 * exit codes of text output.
 */
import { load } from 'js-yaml';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ReconcilerError } from '#lib/errors.js';
import {
  type ClustersCliBed,
  createClustersCliBed,
} from '#test/helpers/clusters-cli-bed.js';

const NOW = Date.parse('2026-05-01T12:00:00Z');

describe('clusters CLI output', () => {
  let bed: ClustersCliBed;

  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
    bed = createClustersCliBed();
  });

  afterEach(() => {
    bed.cleanup();
    vi.useRealTimers();
  });

  /** Registers `bridged` (checkpointed 12 s ago, 3 nodes) and `failing`. */
  const twoClusters = async () => {
    const bridged = bed.kubeconfig('https://10.0.0.1:6443');
    const failing = bed.kubeconfig('https://10.0.0.2:6443');
    await bed.run('add', '--id', 'bridged', '--kubeconfig', bridged);
    await bed.run('add', '--id', 'failing', '--kubeconfig', failing);
    vi.setSystemTime(NOW - 12_000);
    await bed.leases.acquire('bridged', 'run-1', 60_000);
    await bed.leases.checkpoint('bridged', 'run-1', {}, 60_000, { nodes: 3 });
    await bed.leases.release('bridged', 'run-1');
    await bed.leases.recordFailure('failing', 'run-2');
    await bed.leases.recordFailure('failing', 'run-3');
    vi.setSystemTime(NOW);
    return { bridged, failing };
  };

  describe('list', () => {
    it('shows status, budget and how long ago each bridge checkpointed', async () => {
      // Prepare
      await twoClusters();
      // Act
      const listed = await bed.run('list');
      // Assess
      expect(listed).toEqual({
        exitCode: 0,
        stdout: [
          'ID       SERVER                 MODE   STATUS  BUDGET   LAST-BRIDGED        AUTH',
          'bridged  https://10.0.0.1:6443  watch  Ready   400/800  12s ago             kubeconfig',
          'failing  https://10.0.0.2:6443  watch  Ready   400/800  never (failing ×2)  kubeconfig',
          '',
        ].join('\n'),
        stderr: '',
      });
    });

    it('adds the bridge state, nodes, ownership, labels and auth details with -o wide, and drops the header with --no-headers', async () => {
      // Prepare
      const { bridged, failing } = await twoClusters();
      const labeled = await bed.run('label', '--id', 'bridged', 'tier=prod');
      // Act
      const wide = await bed.run('list', '-o', 'wide', '--no-headers');
      // Assess
      expect(labeled.stdout).toBe('cluster bridged labeled\n');
      expect(wide.stdout.split('\n')).toEqual([
        `bridged  https://10.0.0.1:6443  watch  Ready  400/800  12s ago             idle        3  apps/v1  tier=prod  kubeconfig ${bridged}`,
        `failing  https://10.0.0.2:6443  watch  Ready  400/800  never (failing ×2)  failing ×2  -  apps/v1  <none>     kubeconfig ${failing}`,
        '',
      ]);
    });

    it('prints nothing for an empty registry with --no-headers', async () => {
      // Act
      const listed = await bed.run('list', '--no-headers');
      // Assess
      expect(listed).toEqual({ exitCode: 0, stdout: '', stderr: '' });
    });

    it('prints the same document with -o json, --json and -o yaml, with the checkpoint’s time and size', async () => {
      // Prepare
      const { bridged } = await twoClusters();
      // Act
      const json = await bed.run('list', '-o', 'json');
      const alias = await bed.run('list', '--json');
      const yaml = await bed.run('list', '-o', 'yaml');
      // Assess
      const doc = JSON.parse(json.stdout) as { clusters: unknown[] };
      expect(doc.clusters[0]).toEqual({
        id: 'bridged',
        server: 'https://10.0.0.1:6443',
        auth: { type: 'kubeconfig', path: bridged },
        mode: 'watch',
        ownership: 'apps/v1',
        status: 'Ready',
        bridge: 'idle',
        budget: '400/800',
        nodes: 3,
        lastBridged: '2026-05-01T11:59:48.000Z',
      });
      expect(alias).toEqual(json);
      expect(yaml.exitCode).toBe(0);
      expect(load(yaml.stdout)).toEqual(doc);
      expect(yaml.stdout).toMatch(/^clusters:\n {2}- id: bridged\n/);
    });
  });

  describe('-o', () => {
    it.each([
      {
        argv: ['list', '-o', 'x'],
        line: 'error: unknown output format "x": use json, yaml or wide',
        help: 'list',
      },
      {
        argv: ['check', '-o', 'wide'],
        line: 'error: -o wide applies to list only',
        help: 'check',
      },
      {
        argv: ['list', '-o'],
        line: 'error: -o needs a value',
        help: 'list',
      },
    ])(
      'refuses $argv in one line, exit code 2',
      async ({ argv, line, help }) => {
        // Act
        const out = await bed.run(...argv);
        // Assess
        expect(out).toEqual({
          exitCode: 2,
          stdout: '',
          stderr: `${line}\nSee 'npx dsr clusters ${help} --help'.\n`,
        });
      }
    );
  });

  describe('failures with -o json or -o yaml', () => {
    it('prints a contradictory -o as a document in the format asked for', async () => {
      // Act
      const json = await bed.run('list', '--json', '-o', 'yaml');
      const yaml = await bed.run('list', '-o', 'yaml', '--no-headers');
      // Assess
      expect([json.exitCode, yaml.exitCode]).toEqual([2, 2]);
      expect(JSON.parse(json.stderr)).toMatchObject({
        error: '--json means -o json; it does not go with -o yaml',
      });
      expect(yaml.stderr).toBe(
        [
          'error: --no-headers applies to table output, not -o yaml',
          'problems:',
          '  - --no-headers applies to table output, not -o yaml',
          'help: npx dsr clusters list --help',
          '',
        ].join('\n')
      );
    });

    it('prints a failed command’s error as JSON on stderr, exit code 1', async () => {
      // Act
      const out = await bed.run('remove', '--id', 'ghost', '-o', 'json');
      // Assess
      expect(out.exitCode).toBe(1);
      expect(out.stdout).toBe('');
      expect(JSON.parse(out.stderr)).toEqual({
        error: 'cluster ghost is not registered in state; nothing removed',
      });
    });

    it('prints a thrown error with its causes as JSON', async () => {
      // Prepare
      bed.deps.registry.get = async () => {
        throw new ReconcilerError('DynamoDB get cluster cluster#x failed', {
          cause: new Error('connect ECONNREFUSED 127.0.0.1:8000'),
        });
      };
      // Act
      const out = await bed.run('unfence', '--id', 'x', '--json');
      // Assess
      expect(out.exitCode).toBe(1);
      expect(JSON.parse(out.stderr)).toEqual({
        error:
          'DynamoDB get cluster cluster#x failed: connect ECONNREFUSED 127.0.0.1:8000',
      });
    });

    it('prints each aggregated error in the document', async () => {
      // Prepare
      bed.deps.registry.list = async () => {
        throw new AggregateError(
          [new Error('invalid cluster record x: id …')],
          '1 invalid cluster record(s) in state'
        );
      };
      // Act
      const out = await bed.run('list', '-o', 'yaml');
      // Assess
      expect(out.exitCode).toBe(1);
      expect(load(out.stderr)).toEqual({
        error: '1 invalid cluster record(s) in state',
        errors: ['invalid cluster record x: id …'],
      });
    });

    it('prints a bad command line’s problems and its help as JSON, exit code 2', async () => {
      // Act
      const out = await bed.runRaw(['add', '--json', '--id', 'x', '--bogus']);
      // Assess
      expect(out.exitCode).toBe(2);
      expect(out.stdout).toBe('');
      expect(JSON.parse(out.stderr)).toEqual({
        error: 'unknown option --bogus',
        problems: ['unknown option --bogus'],
        help: 'npx dsr clusters add --help',
      });
    });

    it('prints the problems of invalid add options as JSON', async () => {
      // Act
      const out = await bed.run(
        'add',
        '--id',
        'x',
        '--eks-cluster',
        'e',
        '-o',
        'json'
      );
      // Assess
      expect(out.exitCode).toBe(2);
      expect(JSON.parse(out.stderr)).toEqual({
        error:
          '--server URL is required; give exactly one of --ca-file PEM, --ca-data BASE64 (TLS is always verified); --eks-region R is required (or --region / AWS_REGION)',
        problems: [
          '--server URL is required',
          'give exactly one of --ca-file PEM, --ca-data BASE64 (TLS is always verified)',
          '--eks-region R is required (or --region / AWS_REGION)',
        ],
        help: 'npx dsr clusters add --help',
      });
    });
  });
});
