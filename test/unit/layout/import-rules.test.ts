/**
 * The layout's import directions (biome.json `overrides` with
 * `noRestrictedImports`), proven by linting probe files: each case puts one
 * import into a file of one folder, in a scratch copy of the tree's lint
 * configuration, and expects Biome to refuse it with the folder's message —
 * or, for the allowed directions, to accept it. `npm test` lints the real
 * tree with the same rules, so a wrong-way import fails it.
 */
import { execFileSync } from 'node:child_process';
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface Probe {
  /** The folder of the importing file. */
  dir: string;
  /** The module it imports. */
  from: string;
  /** A phrase of the expected message, or undefined when allowed. */
  refused?: string;
}

const probes: Probe[] = [
  {
    dir: 'lib/reconcile',
    from: '../sync/sync-daemon-set.js',
    refused: 'pure core',
  },
  {
    dir: 'lib/reconcile/k8s',
    from: '../../adapters/kube/kube-http.js',
    refused: 'pure core',
  },
  {
    dir: 'lib/cli/plugin',
    from: '../clusters/add-cluster.js',
    refused: "share only lib/cli's own files",
  },
  {
    dir: 'lib/cli/clusters',
    from: '../plugin/run-plugin.js',
    refused: "share only lib/cli's own files",
  },
  {
    dir: 'lib/cli/clusters',
    from: '../../adapters/kube/kube-http.js',
    refused: 'take their adapters',
  },
  {
    dir: 'lib/cli/fleet',
    from: '../clusters/clusters-usage.js',
    refused: "share only lib/cli's own files",
  },
  {
    dir: 'lib/cli/clusters',
    from: '../fleet/run-fleet-cli.js',
    refused: "share only lib/cli's own files",
  },
  {
    dir: 'lib/cli/fleet',
    from: '../../adapters/dynamodb/dynamo-fleet-rollout-store.js',
    refused: 'take their adapters',
  },
  { dir: 'lib/cli/plugin', from: '../parse-table-locator.js' },
  { dir: 'lib/cli/fleet', from: '../render-output.js' },
  { dir: 'lib/fleet', from: '../worker/reconciler.js', refused: 'pure core' },
  {
    dir: 'lib/fleet',
    from: '@aws-sdk/client-dynamodb',
    refused: 'AWS libraries',
  },
  { dir: 'lib/fleet', from: '../reconcile/k8s/types.js' },
  { dir: 'lib/policy', from: '../worker/reconciler.js', refused: 'pure core' },
  { dir: 'lib/policy', from: '@aws-sdk/client-sqs', refused: 'AWS libraries' },
  {
    dir: 'lib/sync',
    from: '../adapters/kube/kube-pod-control.js',
    refused: 'through ports only',
  },
  {
    dir: 'lib/sync',
    from: '#lib/worker/process-key.js',
    refused: 'through ports only',
  },
  {
    dir: 'lib/ports',
    from: '../adapters/system-clock.js',
    refused: 'Ports are interfaces',
  },
  {
    dir: 'lib/worker',
    from: '../adapters/kube/kube-http.js',
    refused: 'never concrete adapters',
  },
  {
    dir: 'lib/bridge',
    from: '../adapters/kube/kube-cluster-watch.js',
    refused: 'never concrete adapters',
  },
  {
    dir: 'lib/bridge',
    from: '../wiring/aws.js',
    refused: 'never concrete adapters',
  },
  {
    dir: 'lib/workqueue',
    from: '@aws-sdk/client-sqs',
    refused: 'AWS libraries',
  },
  {
    dir: 'lib/workqueue',
    from: '../adapters/system-clock.js',
    refused: 'never concrete adapters',
  },
  { dir: 'lib/adapters/sqs', from: '../../workqueue/arm-for-send.js' },
  {
    dir: 'lib/cli',
    from: '../adapters/kube/kube-config-for-cluster.js',
    refused: 'take their adapters',
  },
  {
    dir: 'lib/adapters/sqs',
    from: '../../worker/process-key.js',
    refused: 'Adapters are leaves',
  },
  {
    dir: 'lib/adapters',
    from: '../worker/reconciler.js',
    refused: 'Adapters are leaves',
  },
  {
    dir: 'lib/adapters/dynamodb',
    from: '../kube/kube-http.js',
    refused: 'hold a KubeHttp',
  },
  {
    dir: 'lib/wiring',
    from: '../adapters/kube/kube-http.js',
    refused: 'hold a KubeHttp',
  },
  {
    dir: 'lib/handlers',
    from: '../adapters/system-clock.js',
    refused: 'from functions/',
  },
  { dir: 'lib', from: './adapters/system-clock.js', refused: 'leaves' },
  {
    dir: 'lib/worker',
    from: '#test/helpers/builders.js',
    refused: 'never imports test code',
  },
  {
    dir: 'functions',
    from: '../test/testbed/kube-fixtures.js',
    refused: 'never imports test code',
  },
  {
    dir: 'functions',
    from: '../lib/adapters/kube/client/kube-http.js',
    refused: 'hold a KubeHttp',
  },
  // Allowed directions.
  { dir: 'lib/sync', from: '../reconcile/rolling-update.js' },
  { dir: 'lib/worker', from: '../sync/sync-daemon-set.js' },
  { dir: 'lib/bridge', from: '../ports/index.js' },
  { dir: 'lib/adapters/sqs', from: '../../policy/timer-message.js' },
  { dir: 'lib/adapters/kube', from: './kube-http.js' },
  {
    dir: 'lib/wiring',
    from: '../handlers/reconcile-handler.js',
    refused: 'hands it to the handlers',
  },
  { dir: 'lib/wiring', from: '../adapters/kube/kube-cluster-connection.js' },
  { dir: 'lib/wiring', from: '../cli/local-run-options.js' },
  { dir: 'lib/wiring', from: '../local-cluster/local-cluster.js' },
  { dir: 'functions', from: '../lib/wiring/aws.js' },
];

interface Diagnostic {
  category: string;
  message: string;
  location: { path: string };
}

describe('the layout import rules (biome.json)', () => {
  let dir: string;
  let diagnostics: Diagnostic[];

  beforeAll(() => {
    // Prepare: one probe tree, linted once with the project's configuration.
    dir = mkdtempSync(path.join(os.tmpdir(), 'dsr-layout-'));
    const config = JSON.parse(readFileSync('biome.json', 'utf8'));
    config.vcs = { enabled: false };
    config.$schema = undefined;
    writeFileSync(path.join(dir, 'biome.json'), JSON.stringify(config));
    probes.forEach((p, i) => {
      const file = path.join(dir, p.dir, `probe-${i}.ts`);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(
        file,
        `import * as probe from '${p.from}';\n\nexport const used = probe;\n`
      );
    });
    let out: string;
    try {
      out = execFileSync(
        path.resolve('node_modules/.bin/biome'),
        ['lint', '--reporter=json', '--max-diagnostics=none', '.'],
        { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }
      );
    } catch (e) {
      // Biome exits 1 when it reports errors; the report is on stdout.
      out = (e as { stdout: string }).stdout;
    }
    diagnostics = (JSON.parse(out) as { diagnostics: Diagnostic[] })
      .diagnostics;
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it.each(
    probes.map((p, i) => ({
      ...p,
      i,
      verdict: p.refused ? 'refuses' : 'allows',
    }))
  )('$verdict an import of $from in $dir', ({ i, dir: folder, refused }) => {
    // Act
    const found = diagnostics.filter(
      (d) =>
        d.category === 'lint/style/noRestrictedImports' &&
        d.location.path.replaceAll('\\', '/') === `${folder}/probe-${i}.ts`
    );
    // Assess
    if (refused === undefined) {
      expect(found).toEqual([]);
    } else {
      expect(found.map((d) => d.message).join('\n')).toContain(refused);
    }
  });
});
