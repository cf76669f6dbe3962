/**
 * Where failed tests leave their logs: written by failure-report.ts inside
 * the test workers, read by summary-reporter.ts in the main process (which
 * must not load the test runner's API).
 */
import path from 'node:path';

export const FAILURE_REPORT_DIR = path.resolve('.build/test-failures');
