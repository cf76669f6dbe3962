/**
 * The run's plain summary line never reads "0 failed" for a red run: a
 * failing test, a file that failed before its tests, a describe whose hook
 * threw (its tests skipped) and an error outside any test each count.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { TestModule } from 'vitest/node';
import SummaryReporter from '../../helpers/summary-reporter.js';

const test = (state: string) => ({ result: () => ({ state }) });
const suite = (state: string, errors: unknown[] = []) => ({
  state: () => state,
  errors: () => errors,
});
const testModule = (o: {
  state?: string;
  errors?: unknown[];
  tests: ReturnType<typeof test>[];
  suites?: ReturnType<typeof suite>[];
}) =>
  ({
    state: () => o.state ?? 'passed',
    errors: () => o.errors ?? [],
    children: { allTests: () => o.tests, allSuites: () => o.suites ?? [] },
  }) as unknown as TestModule;

describe('SummaryReporter', () => {
  afterEach(() => vi.restoreAllMocks());

  it('counts a describe whose beforeAll threw as a failure (the kruise-oracle suite of session 11’s rehearsal read "0 failed")', () => {
    // Prepare
    const out: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
      out.push(String(s));
      return true;
    });
    const modules = [
      testModule({ tests: [test('passed'), test('passed')] }),
      testModule({
        state: 'failed',
        tests: [test('skipped'), test('skipped')],
        suites: [suite('failed', [{ message: 'create crd: write EPIPE' }])],
      }),
      testModule({ state: 'failed', errors: [{}], tests: [test('failed')] }),
    ];
    // Act
    new SummaryReporter().onTestRunEnd(modules, [{ message: 'stray' }]);
    // Assess
    expect(out.join('')).toContain('2 passed, 4 failed, 2 skipped');
  });
});
