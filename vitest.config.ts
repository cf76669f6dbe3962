import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
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
