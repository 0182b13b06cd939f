import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';
import SummaryReporter from './test/summary-reporter.js';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Suites with their own config and command: the release executable's (npm run test:binary,
    // vitest.binary.config.ts) and the real control plane's (npm run test:real).
    exclude: [...configDefaults.exclude, 'test/binary/**', 'test/real/**'],
    // The end-to-end files mostly wait on kubectl and the simulator's clock, so one worker per core
    // leaves a 2-core machine half idle: 3 workers took the suite from 782 s to 460 s there.
    maxWorkers: Math.max(3, availableParallelism()),
    testTimeout: 60_000,
    hookTimeout: 30_000,
    reporters: ['default', new SummaryReporter()],
  },
});
