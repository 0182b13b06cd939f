import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { reportFailure } from '../../src/report/format/failure.js';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => (text += chunk.toString()));
  return { stream, text: () => text };
}

describe('reportFailure', () => {
  it('prints the message, a GitHub ::error annotation and the JSON report, each once', async () => {
    const stdout = capture();
    const stderr = capture();
    await reportFailure(
      { outcome: 'error', exitCode: 2, message: 'kubectl could not apply:\n100% broken', messages: ['read 1 object'] },
      { stdout: stdout.stream, stderr: stderr.stream, json: true, githubActions: true },
    );
    expect(stderr.text()).toBe(
      'kguard: kubectl could not apply:\n100% broken (exit 2)\n::error title=kguard::kubectl could not apply:%0A100%25 broken (exit 2)\n',
    );
    expect(JSON.parse(stdout.text())).toEqual({
      reportVersion: 3,
      outcome: 'error',
      exitCode: 2,
      error: 'kubectl could not apply:\n100% broken',
      messages: ['read 1 object'],
    });
  });

  it('does not repeat a message commander printed, and prints no JSON in text mode', async () => {
    const stdout = capture();
    const stderr = capture();
    await reportFailure(
      { outcome: 'error', exitCode: 1, message: "unknown option '--x'", printed: true },
      { stdout: stdout.stream, stderr: stderr.stream, json: false, githubActions: false },
    );
    expect(stderr.text()).toBe('');
    expect(stdout.text()).toBe('');
  });
});
