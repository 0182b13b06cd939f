// kube-sim's kubelet texts against the ones recorded from a real v1.37.2 kubelet (fixtures/README.md).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../scenario.js';
import { parseImageRef, SimulatedRegistry } from './images.js';

interface Events {
  items: { reason: string; message: string }[];
}
const events = (name: string): Events['items'] =>
  (JSON.parse(readFileSync(new URL(`./fixtures/${name}.events.json`, import.meta.url), 'utf8')) as Events).items;
const node = JSON.parse(readFileSync(new URL('./fixtures/node.json', import.meta.url), 'utf8')) as {
  status: { nodeInfo: { kubeletVersion: string; containerRuntimeVersion: string } };
};

describe("kube-sim's kubelet texts match a real kubelet's", () => {
  it('were recorded from kubelet v1.37.2 with containerd 1.6.20', () => {
    expect(node.status.nodeInfo).toMatchObject({
      kubeletVersion: 'v1.37.2',
      containerRuntimeVersion: 'containerd://1.6.20',
    });
  });

  it('a missing tag: the pull error, with the NotFound prefix, as the Failed event says it', () => {
    const image = '127.0.0.1:45471/kguard/testapp:9.99';
    const ref = parseImageRef(image);
    if ('error' in ref) throw new Error(ref.error);
    const outcome = new SimulatedRegistry(loadScenario({ registry: { [image]: 'missing' } })).pull(ref);
    expect(outcome.ok).toBe(false);
    const failed = events('missing-tag').find((event) => event.message.startsWith('Failed to pull image'));
    expect(failed?.message).toBe(`Failed to pull image "${image}": ${outcome.ok ? '' : outcome.error}`);
  });

  it('container events: created and started name no container; an image already present "can be accessed by the pod"', () => {
    const messages = events('crash-loop').map((event) => `${event.reason}: ${event.message}`);
    expect(messages).toContain('Created: Container created');
    expect(messages).toContain('Started: Container started');
    expect(messages).toContain(
      'Pulled: Container image "127.0.0.1:45471/kguard/testapp:1" already present on machine and can be accessed by the pod',
    );
  });
});
