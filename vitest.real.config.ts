import { defineConfig } from 'vitest/config';
import SummaryReporter from './test/summary-reporter.js';

// `npm run test:real`: kguard against a real control plane (test/control-plane/), started once by
// the global setup and shared by every file; each file works in a namespace of its own.
export default defineConfig({
  test: {
    include: ['test/real/**/*.test.ts'],
    globalSetup: ['test/real/global-setup.ts'],
    // Two files at a time: the control plane itself needs most of a 2-core machine's second core.
    maxWorkers: 2,
    testTimeout: 120_000,
    hookTimeout: 60_000,
    reporters: ['default', new SummaryReporter()],
  },
});
