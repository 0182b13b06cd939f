// Kubectl.logs: the exact argv, and kubectl's own words when it cannot read (stderr captured from
// the real kubectl 1.32 against the simulator, whose texts are the kubelet's validateContainerLogStatus).
import { describe, expect, it } from 'vitest';
import { createKubectl } from '../../src/kubectl/client.js';
import type { Exec, ExecResult } from '../../src/kubectl/process/exec.js';
import { kubectlStderr } from '../fixtures/load.js';

const connection = {
  binary: 'kubectl',
  connectionArgs: ['--context=prod'],
  requestTimeout: '30s',
  readDeadlineMs: 45_000,
};

function answering(result: ExecResult) {
  const calls: Array<readonly string[]> = [];
  const exec: Exec = async (_file, args) => {
    calls.push(args);
    return result;
  };
  return { exec, calls };
}

describe('Kubectl.logs', () => {
  it('asks for the last lines of one container, --previous for the run before the restart', async () => {
    const { exec, calls } = answering({ exitCode: 0, stdout: 'starting\nFATAL: no config\n', stderr: '' });
    const kubectl = createKubectl(exec, connection);
    expect(await kubectl.logs('shop', 'web-7d9c6b8f4d-h6s9k', 'app', { tail: 50, previous: true })).toEqual({
      ok: true,
      text: 'starting\nFATAL: no config\n',
    });
    expect(calls).toEqual([
      [
        '--context=prod',
        'logs',
        'web-7d9c6b8f4d-h6s9k',
        '-n',
        'shop',
        '-c',
        'app',
        '--tail=50',
        '--previous',
        '--request-timeout=30s',
      ],
    ]);
    expect(kubectl.spawned).toBe(1);
  });

  it.each([
    [
      'logs-previous-not-found',
      /^Error from server \(BadRequest\): previous terminated container "nginx" in pod "web-[a-z0-9-]+" not found$/,
    ],
    ['logs-waiting-to-start', /is waiting to start: trying and failing to pull image$/],
  ])('says what kubectl said when it cannot read (%s)', async (fixture, said) => {
    const { exec } = answering({ exitCode: 1, stdout: '', stderr: kubectlStderr(fixture) });
    const result = await createKubectl(exec, connection).logs('default', 'web', 'nginx', { tail: 50, previous: false });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(said);
  });
});
