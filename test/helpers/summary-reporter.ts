/**
 * Prints one plain line, `N passed, N failed, N skipped`, when the run ends,
 * for tools that read a run's result from plain text (.ci/run repeats it as
 * its last line, after the coverage report). A test file that fails before
 * its tests run (an import error, a failing hook — of the file or of a
 * describe) and an error outside any test each count as one failure, so the line never reads "0 failed" for a
 * red run. Before it come the closing lines of each report a failed test
 * left (failure-report.ts): CI keeps only a run's last lines.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { SerializedError } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';
import { FAILURE_REPORT_DIR } from './failure-report-dir.js';

/** Lines of one failure report shown at the end of a run. */
const REPORT_TAIL_LINES = 30;
/** Reports shown at most (the rest stay in their folder). */
const REPORTS_SHOWN = 3;

/** Each report's heading and closing lines, reports in name order. */
const failureReports = (): string[] => {
  let files: string[];
  try {
    files = readdirSync(FAILURE_REPORT_DIR).sort();
  } catch {
    return [];
  }
  const more =
    files.length > REPORTS_SHOWN
      ? [`(${files.length - REPORTS_SHOWN} more in ${FAILURE_REPORT_DIR})`]
      : [];
  return files
    .slice(0, REPORTS_SHOWN)
    .flatMap((file) => {
      const [heading = file, ...lines] = readFileSync(
        path.join(FAILURE_REPORT_DIR, file),
        'utf8'
      ).split('\n');
      return [
        '',
        `--- log of the failed test ${heading} (last ${REPORT_TAIL_LINES} lines of ${lines.length}) ---`,
        ...lines.slice(-REPORT_TAIL_LINES),
      ];
    })
    .concat(more);
};

export default class SummaryReporter implements Reporter {
  onInit(): void {
    rmSync(FAILURE_REPORT_DIR, { recursive: true, force: true });
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>
  ): void {
    const counts = { passed: 0, failed: unhandledErrors.length, skipped: 0 };
    for (const module of testModules) {
      if (module.state() === 'failed' && module.errors().length > 0) {
        counts.failed++;
      }
      // A describe whose beforeAll or afterAll threw: its tests are skipped.
      for (const suite of module.children.allSuites()) {
        if (suite.state() === 'failed' && suite.errors().length > 0) {
          counts.failed++;
        }
      }
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    const reports = failureReports();
    if (reports.length > 0) process.stdout.write(`${reports.join('\n')}\n`);
    process.stdout.write(
      `\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`
    );
  }
}
