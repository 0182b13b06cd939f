// Prints one plain closing line, "tests: N passed, N failed, N skipped", that any CI log reader
// understands (vitest's own summary is coloured and split over several lines), and, while the
// suite runs, a line every 30 s saying it is alive: which files are done and which are running
// (the end-to-end files take up to a minute each, and vitest prints a file only when it ends).
import type { Reporter, TestModule, TestSpecification } from 'vitest/node';

const HEARTBEAT_MS = 30_000;

export default class SummaryReporter implements Reporter {
  private total = 0;
  private done = 0;
  private readonly running = new Set<string>();
  private startedAt = 0;
  private heartbeat: NodeJS.Timeout | undefined;

  onTestRunStart(specifications: ReadonlyArray<TestSpecification>): void {
    this.total = specifications.length;
    this.startedAt = Date.now();
    this.heartbeat = setInterval(() => this.alive(), HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  onTestModuleStart(testModule: TestModule): void {
    this.running.add(testModule.relativeModuleId);
  }

  onTestModuleEnd(testModule: TestModule): void {
    this.running.delete(testModule.relativeModuleId);
    this.done += 1;
  }

  private alive(): void {
    const seconds = Math.round((Date.now() - this.startedAt) / 1000);
    const running = [...this.running].sort().join(', ');
    process.stdout.write(
      `tests: still running after ${seconds}s: ${this.done} of ${this.total} files done${running ? `; running ${running}` : ''}\n`,
    );
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    clearInterval(this.heartbeat);
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
