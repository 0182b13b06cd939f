// Node objects for the scenario's nodes, so `kubectl get nodes` / `describe node` look like a
// small kind cluster. The scheduler reads capacity from the scenario, not from these objects.

import type { NodeSpec } from '../scenario.js';
import type { Store } from '../store.js';
import type { KubeObject } from '../types.js';
import { hostIpOf } from './kubelet/kubelet.js';

export function registerNodes(store: Store, nodes: NodeSpec[], nowIso: string, kubeletVersion = '1.32'): void {
  nodes.forEach((node, index) => {
    if (store.get('Node', '', node.name)) return;
    store.create(nodeObject(node, index, nowIso, kubeletVersion));
  });
}

function nodeObject(node: NodeSpec, index: number, nowIso: string, kubeletVersion: string): KubeObject {
  const resources = { cpu: node.cpu, memory: node.memory, pods: String(node.pods), 'ephemeral-storage': '100Gi' };
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    lastHeartbeatTime: nowIso,
    lastTransitionTime: nowIso,
    reason,
    message,
  });
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name: node.name, labels: node.labels },
    spec: {
      podCIDR: `10.244.${index + 1}.0/24`,
      podCIDRs: [`10.244.${index + 1}.0/24`],
      ...(node.taints.length > 0 ? { taints: node.taints } : {}),
    },
    status: {
      capacity: resources,
      allocatable: resources,
      conditions: [
        condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
        condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
        condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
        condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
      ],
      addresses: [
        { type: 'InternalIP', address: hostIpOf(index) },
        { type: 'Hostname', address: node.name },
      ],
      nodeInfo: {
        architecture: 'amd64',
        operatingSystem: 'linux',
        osImage: 'Debian GNU/Linux 12 (bookworm)',
        kernelVersion: '6.8.0-kguard-sim',
        containerRuntimeVersion: 'containerd://1.7.24',
        kubeletVersion: `v${kubeletVersion}.0`,
        kubeProxyVersion: `v${kubeletVersion}.0`,
      },
    },
  };
}
