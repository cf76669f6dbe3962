/**
 * Prints one plain line, `N passed, N failed, N skipped`, when the run ends,
 * for tools that read a run's result from plain text (.ci/run repeats it as
 * its last line, after the coverage report). A test file that fails before
 * its tests run (an import error, a failing hook) and an error outside any
 * test each count as one failure, so the line never reads "0 failed" for a
 * red run.
 */
import type { SerializedError } from 'vitest';
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>
  ): void {
    const counts = { passed: 0, failed: unhandledErrors.length, skipped: 0 };
    for (const module of testModules) {
      if (module.state() === 'failed' && module.errors().length > 0) {
        counts.failed++;
      }
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed++;
        else if (state === 'failed') counts.failed++;
        else counts.skipped++;
      }
    }
    process.stdout.write(
      `\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`
    );
  }
}
