/**
 * The README's commands stay true: every command line of its shell blocks
 * (and every `$ ` line of its transcripts) is one this test knows how to
 * check, and each is checked against what it names — the product's own
 * commands through the product's own parsers (`dsr clusters`, `kubectl
 * dsr`, `npm start`), npm scripts against package.json, manifests and
 * ClusterRoles against infra/kubernetes, stack outputs and the stack name
 * against infra/ and serverless.yml. A command nobody taught this test
 * fails it. (The commands themselves run in the integration tests: the
 * product's on the real test bed, `npm start` and `npm test` in CI; the AWS
 * CLI and osls ones cannot run without an AWS account.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseClustersArgs } from '#lib/cli/clusters/parse-clusters-args.js';
import { parseFleetArgs } from '#lib/cli/fleet/parse-fleet-args.js';
import { parseLocalRunArgs } from '#lib/cli/local-run-options.js';
import { parsePluginArgs } from '#lib/cli/plugin/parse-plugin-args.js';
import type { DaemonSet } from '#lib/reconcile/k8s/types.js';
import {
  ROLLOUT_ANNOTATION,
  readOnDeleteOptIn,
} from '#lib/reconcile/on-delete/rollout-annotation.js';
import { REPO_ROOT } from './infra/package-template.js';

const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8'));
const outputs = readFileSync(
  join(REPO_ROOT, 'infra/resources/outputs.yml'),
  'utf8'
);
const service = /^service:\s*(\S+)/m.exec(
  readFileSync(join(REPO_ROOT, 'serverless.yml'), 'utf8')
)?.[1];
const clusterRoles = readdirSync(join(REPO_ROOT, 'infra/kubernetes')).flatMap(
  (f) =>
    [
      ...readFileSync(join(REPO_ROOT, 'infra/kubernetes', f), 'utf8').matchAll(
        /kind: ClusterRole\nmetadata:\n\s+name: (\S+)/g
      ),
    ].map((m) => m[1])
);

/** Returns the README's command lines: continuations joined, comments cut. */
const commandsOf = (text: string): string[] => {
  const lines: string[] = [];
  for (const [, lang, body = ''] of text.matchAll(/```(\w*)\n([\s\S]*?)```/g)) {
    const shell = lang === 'sh' || lang === 'bash';
    const raw = body.split('\n');
    let heredoc: string | undefined;
    let joined = '';
    for (const line of raw) {
      if (heredoc !== undefined) {
        if (line.trim() === heredoc) heredoc = undefined;
        continue;
      }
      const command = shell ? line : line.startsWith('$ ') ? line.slice(2) : '';
      joined += command.replace(/\s+#\s.*$/, '');
      if (joined.endsWith('\\')) {
        joined = `${joined.slice(0, -1)} `;
        continue;
      }
      const done = joined.trim();
      joined = '';
      if (done === '') continue;
      heredoc = /<<'?(\w+)'?/.exec(done)?.[1];
      lines.push(done);
    }
  }
  return lines;
};

/** Splits a command line into words as a shell would, roughly. */
const words = (line: string): string[] =>
  [...line.matchAll(/"(?:\\.|[^"])*"|'[^']*'|\$\([^)]*\)|\S+/g)].map((m) =>
    m[0].replace(/^"(.*)"$/, '$1').replace(/^'(.*)'$/, '$1')
  );

/** Replaces shell variables and placeholders with sample values. */
const sample = (word: string): string =>
  word
    .replace(/\$REGION/g, 'eu-west-1')
    .replace(/\$\([^)]*\)/g, 'c2FtcGxl')
    .replace(/<ARN>/g, 'arn:aws:secretsmanager:eu-west-1:1:secret:dsr/prod');

type Check = (argv: string[], line: string) => void;

const CHECKS: [RegExp, Check][] = [
  [/^npm (install|test)$/, () => undefined],
  [
    /^npm start\b/,
    (argv) => {
      expect(Object.keys(pkg.scripts)).toContain('start');
      const args = argv[2] === '--' ? argv.slice(3) : argv.slice(2);
      expect(parseLocalRunArgs(args.map(sample)).kind).not.toBe('error');
    },
  ],
  [/^export KUBECONFIG=\S+$/, () => undefined],
  [/^kubectl patch (advds|ds) \S+ --type merge -p /, () => undefined],
  [
    /^npm run \S+/,
    (argv) => expect(Object.keys(pkg.scripts)).toContain(argv[2]),
  ],
  [
    /^npx dsr clusters /,
    (argv) =>
      expect(() =>
        parseClustersArgs(argv.slice(3).map(sample), {})
      ).not.toThrow(),
  ],
  [
    /^npx dsr fleet /,
    (argv) =>
      expect(() => parseFleetArgs(argv.slice(3).map(sample), {})).not.toThrow(),
  ],
  [
    /^kubectl dsr /,
    (argv) => expect(() => parsePluginArgs(argv.slice(2))).not.toThrow(),
  ],
  [
    /^kubectl apply -f /,
    (argv) => {
      const files = argv.filter(
        (_, i) => argv[i - 1] === '-f' && argv[i] !== '-'
      );
      for (const f of files) {
        expect(() => readFileSync(join(REPO_ROOT, f))).not.toThrow();
      }
    },
  ],
  [
    /^kubectl create clusterrolebinding /,
    (argv) => {
      const role = argv
        .find((a) => a.startsWith('--clusterrole='))
        ?.split('=')[1];
      expect(clusterRoles).toContain(role);
    },
  ],
  [/^kubectl (create serviceaccount|get secret) /, () => undefined],
  [/^TOKEN=\$\(kubectl get secret /, () => undefined],
  [/^STACK=/, (_argv, line) => expect(line).toContain(`STACK=${service}-prod`)],
  [/^out\(\) \{ aws cloudformation describe-stacks /, () => undefined],
  [
    /^TABLE=\$\(out /,
    (_argv, line) =>
      expect(outputs).toContain(`${/out (\w+)/.exec(line)?.[1]}:`),
  ],
  [
    /^for entry in /,
    (_argv, line) => {
      for (const [, key] of line.matchAll(/(\w+RoleArn):/g)) {
        expect(outputs).toContain(`${key}:`);
      }
    },
  ],
  [/^aws eks create-access-entry /, () => undefined],
  [/^done$/, () => undefined],
  [
    /^helm upgrade \S+ \S+ /,
    (_argv, line) => {
      // The values change the OnDelete mode needs, and controls it accepts.
      expect(line).toContain('--set updateStrategy.type=OnDelete');
      const controls = /apps\\\.dsr\\\.dev\/rollout=(\{.*\})'/.exec(line)?.[1];
      expect(
        readOnDeleteOptIn({
          metadata: { annotations: { [ROLLOUT_ANNOTATION]: controls ?? '' } },
          spec: { updateStrategy: { type: 'OnDelete' } },
        } as unknown as DaemonSet)
      ).toMatchObject({ optedIn: true, controls: {} });
    },
  ],
  [/^aws secretsmanager create-secret .* --name dsr\//, () => undefined],
  [
    /^aws sqs start-message-move-task /,
    (_argv, line) =>
      expect(outputs).toContain(`${/out (\w+)/.exec(line)?.[1]}:`),
  ],
  [/^aws dynamodb delete-table /, () => undefined],
  [/^npx osls (deploy|remove) --stage \S+ --region \S+$/, () => undefined],
];

describe('the README (its commands)', () => {
  const commands = commandsOf(readme);

  it('has commands to check', () => {
    expect(commands.length).toBeGreaterThan(20);
  });

  it.each(commands)('%s', (line) => {
    const check = CHECKS.find(([pattern]) => pattern.test(line));
    expect(check, `no check knows: ${line}`).toBeDefined();
    check?.[1](words(line.split(' | ')[0] ?? line), line);
  });
});
