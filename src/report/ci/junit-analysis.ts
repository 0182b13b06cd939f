// The analysis in the JUnit file: a test case per metric (classname kguard.analysis). A metric
// that failed fails its case with the verdict line and its evaluations; one that could not be
// judged is an error (the new version was not judged); one stopped by something else is skipped.
import type { JsonAnalysis } from '../json-analysis.js';

/** A test case as junit.ts writes it (its TestCase, said again here: junit.ts imports this file). */
interface TestCase {
  name: string;
  classname: string;
  seconds: number;
  output?: string;
  failure?: { message: string; type: string; text: string };
  error?: { message: string; type: string; text: string };
  skipped?: string;
}

export function analysisCases(analysis: JsonAnalysis): TestCase[] {
  return analysis.metrics.map((metric): TestCase => {
    const evaluations = analysis.evaluations.filter((evaluation) => evaluation.metric === metric.name);
    const test: TestCase = {
      name: `analysis: ${metric.name}`,
      classname: 'kguard.analysis',
      seconds: evaluations.reduce((total, evaluation) => total + evaluation.elapsedMs, 0) / 1000,
      output: `${metric.query}\n${metric.evaluations} evaluations, ${metric.failures} failed, ${metric.inconclusive} inconclusive`,
    };
    const lines = evaluations.map(
      (evaluation) =>
        `${evaluation.at} ${evaluation.result}: ${evaluation.value ?? evaluation.detail ?? 'no value'} (expected ${evaluation.expectation})`,
    );
    const decided = analysis.metric === metric.name;
    const text = [analysis.summary, ...lines, ...(analysis.nextStep ? [`next: ${analysis.nextStep}`] : [])].join('\n');
    if (metric.verdict === 'failed')
      test.failure = { message: decided ? analysis.summary : `${metric.name} failed`, type: 'analysis', text };
    else if (metric.verdict === 'inconclusive')
      test.error = { message: decided ? analysis.summary : `${metric.name} inconclusive`, type: 'inconclusive', text };
    else if (metric.verdict === 'stopped') test.skipped = 'stopped before its verdict';
    return test;
  });
}
