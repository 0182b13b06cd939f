// Prints one plain closing line, "tests: N passed, N failed, N skipped", that any CI log reader
// understands (vitest's own summary is coloured and split over several lines).
import type { Reporter, TestModule } from 'vitest/node';

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const testModule of testModules) {
      for (const test of testModule.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed += 1;
        else if (state === 'failed') failed += 1;
        else skipped += 1;
      }
      // A file that failed to load has no tests but must not look green.
      if (testModule.state() === 'failed' && [...testModule.children.allTests()].length === 0) failed += 1;
    }
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`);
  }
}
