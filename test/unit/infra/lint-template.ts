/**
 * Runs checkov and cfn-lint (PyPI, pinned in test/tools/requirements.txt) on
 * a packaged template, and reads the deliberate exceptions of
 * infra/lint-skips.yaml.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { load } from 'js-yaml';
import { type CfnTemplate, REPO_ROOT } from './package-template.js';

const run = promisify(execFile);

/** One finding kept on purpose: a rule, where it applies, and why. */
export interface LintSkip {
  id: string;
  resources: string[];
  reason: string;
}

/** The deliberate exceptions, per tool. */
export interface LintSkips {
  checkov: LintSkip[];
  'cfn-lint': LintSkip[];
}

/** One checkov result: the check and the resource (`Type.LogicalId`). */
export interface CheckovFinding {
  check_id: string;
  check_name: string;
  resource: string;
  check_result: { result: string; suppress_comment?: string };
}

/** What checkov reports for one template. */
export interface CheckovReport {
  passed: CheckovFinding[];
  failed: CheckovFinding[];
  skipped: CheckovFinding[];
  parsingErrors: string[];
}

/** One cfn-lint match. */
export interface CfnLintFinding {
  Level: 'Error' | 'Warning' | 'Informational';
  Message: string;
  Rule: { Id: string };
  Location: { Path: (string | number)[] };
}

/** The checked-in list of deliberate exceptions. */
export const LINT_SKIPS_FILE = join(REPO_ROOT, 'infra', 'lint-skips.yaml');

/** Returns the exceptions of infra/lint-skips.yaml. */
export const readLintSkips = async (): Promise<LintSkips> => {
  const parsed = load(await readFile(LINT_SKIPS_FILE, 'utf8')) as
    | Partial<LintSkips>
    | undefined;
  return {
    checkov: parsed?.checkov ?? [],
    'cfn-lint': parsed?.['cfn-lint'] ?? [],
  };
};

/**
 * Returns a copy of `t` in which every resource that infra/lint-skips.yaml
 * names for checkov carries those skips in `Metadata.checkov.skip`, so that
 * checkov reports them as skipped, with the reason. Throws when a skip names
 * a resource the template lacks.
 */
export const withCheckovSkips = (
  t: CfnTemplate,
  skips: LintSkip[]
): CfnTemplate => {
  const copy = structuredClone(t);
  for (const s of skips) {
    for (const id of s.resources) {
      const r = copy.Resources[id];
      if (!r) throw new Error(`${LINT_SKIPS_FILE}: no resource ${id}`);
      r.Metadata ??= {};
      const m = r.Metadata as { checkov?: { skip: unknown[] } };
      m.checkov ??= { skip: [] };
      m.checkov.skip.push({ id: s.id, comment: s.reason });
    }
  }
  return copy;
};

/**
 * Returns the bin directory of the cached venv holding the pinned tools,
 * installing them first if needed (about two minutes the first time).
 */
export const installPythonTools = async (): Promise<string> => {
  const script = join(REPO_ROOT, 'test', 'tools', 'python-tools.sh');
  const { stdout } = await run('bash', [script], { cwd: REPO_ROOT });
  const bin = stdout.trim().split('\n').at(-1);
  if (!bin) throw new Error(`${script} printed no venv`);
  return bin;
};

/** Runs checkov on the template file and returns its findings. */
export const runCheckov = async (
  bin: string,
  templateFile: string
): Promise<CheckovReport> => {
  // --skip-download: no Prisma Cloud look-ups (no network, same result);
  // --soft-fail: findings are the test's to judge, a non-zero exit is a crash.
  const { stdout } = await run(
    join(bin, 'checkov'),
    [
      ...['--file', templateFile, '--framework', 'cloudformation'],
      ...['--output', 'json', '--skip-download', '--soft-fail'],
    ],
    { maxBuffer: 64 * 1024 * 1024, env: { ...process.env, LOG_LEVEL: 'ERROR' } }
  );
  const report = JSON.parse(stdout) as {
    results: {
      passed_checks: CheckovFinding[];
      failed_checks: CheckovFinding[];
      skipped_checks: CheckovFinding[];
      parsing_errors: string[];
    };
  };
  const r = report.results;
  return {
    passed: r.passed_checks,
    failed: r.failed_checks,
    skipped: r.skipped_checks,
    parsingErrors: r.parsing_errors,
  };
};

/** Runs cfn-lint on the template file and returns every match. */
export const runCfnLint = async (
  bin: string,
  templateFile: string
): Promise<CfnLintFinding[]> => {
  const { stdout } = await run(
    join(bin, 'cfn-lint'),
    ['--format', 'json', '--non-zero-exit-code', 'none', '--', templateFile],
    { maxBuffer: 16 * 1024 * 1024 }
  );
  return JSON.parse(stdout) as CfnLintFinding[];
};

/** Returns a checkov finding as `CHECK_ID LogicalId: check name`. */
export const describeCheckov = (f: CheckovFinding): string =>
  `${f.check_id} ${f.resource.split('.').at(-1)}: ${f.check_name}`;

/** Returns a cfn-lint finding as `RULE path: message`. */
export const describeCfnLint = (f: CfnLintFinding): string =>
  `${f.Rule.Id} ${f.Location.Path.join('/')}: ${f.Message}`;
