import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    reporters: ['default', './test/helpers/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'] },
      },
      {
        extends: true,
        test: {
          name: 'adapters',
          include: ['test/adapters/**/*.test.ts'],
          globalSetup: ['test/adapters/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          // EMF lines would flood the output; the sink is asserted directly.
          env: { POWERTOOLS_METRICS_DISABLED: 'true' },
          globalSetup: ['test/integration/global-setup.ts'],
          // One shared control plane: files run one at a time.
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
    ],
    coverage: {
      provider: 'v8',
      include: ['lib/reconcile/**', 'lib/sync/**'],
      reporter: ['text-summary', 'text'],
      // The planners and the orchestrator are the product: every branch
      // must be exercised (STYLE.md point 22).
      thresholds: {
        lines: 100,
        branches: 100,
        functions: 100,
        statements: 100,
      },
    },
  },
});
