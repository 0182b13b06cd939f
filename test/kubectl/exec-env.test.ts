// kubectl runs without kuberc preferences: from kubectl 1.34 a ~/.kube/kuberc default such as
// `delete --interactive` makes kubectl refuse kguard's --raw calls (checked with kubectl 1.35:
// "--interactive can not be used with --raw"). CI's kubectl (1.32) reads no kuberc, so what is
// checked here is the switch every kubectl process gets, and that the rest of the environment stays.
import { describe, expect, it } from 'vitest';
import { execProcess, streamProcess } from '../../src/kubectl/process/exec.js';

describe('the environment of kubectl processes', () => {
  it('turns kuberc off (KUBECTL_KUBERC=false) and passes everything else on, for calls and streams alike', async () => {
    process.env.KGUARD_TEST_MARK = 'kept';
    try {
      const script = 'echo "$KUBECTL_KUBERC $KGUARD_TEST_MARK"';
      const called = await execProcess('/bin/sh', ['-c', script], { timeoutMs: 10_000 });
      expect(called.stdout.trim()).toBe('false kept');
      let streamed = '';
      const stream = streamProcess('/bin/sh', ['-c', script], (text) => (streamed += text));
      await stream.done;
      expect(streamed.trim()).toBe('false kept');
    } finally {
      delete process.env.KGUARD_TEST_MARK;
    }
  });
});
