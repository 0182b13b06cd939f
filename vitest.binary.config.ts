// `npm run test:binary` (not part of npm test): the end-to-end files that run the CLI, with the
// linux-x64 release executable as the kguard under test, copied alone into an empty folder
// (test/binary/setup.ts), plus the checks of that executable itself (test/binary/).
import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import SummaryReporter from './test/summary-reporter.js';

export default defineConfig({
  test: {
    include: [
      'test/binary/**/*.test.ts',
      'test/e2e/apply.test.ts',
      'test/e2e/costs.test.ts',
      'test/e2e/errors.test.ts',
      'test/e2e/inputs.test.ts',
      'test/e2e/output.test.ts',
      'test/e2e/restore.test.ts',
      'test/e2e/journal.test.ts',
      'test/e2e/ship.test.ts',
      'test/e2e/history.test.ts',
    ],
    globalSetup: ['test/binary/setup.ts'],
    maxWorkers: Math.max(3, availableParallelism()),
    testTimeout: 60_000,
    hookTimeout: 30_000,
    reporters: ['default', new SummaryReporter()],
  },
});
