// The kubeconfig kubectl uses to reach a simulated cluster: plain HTTP, no credentials.

export const CONTEXT_NAME = 'kguard-sim';

export function kubeconfigFor(serverUrl: string): string {
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${CONTEXT_NAME}`,
    '  cluster:',
    `    server: ${serverUrl}`,
    'contexts:',
    `- name: ${CONTEXT_NAME}`,
    '  context:',
    `    cluster: ${CONTEXT_NAME}`,
    `    user: ${CONTEXT_NAME}`,
    '    namespace: default',
    `current-context: ${CONTEXT_NAME}`,
    'users:',
    `- name: ${CONTEXT_NAME}`,
    '  user: {}',
    'preferences: {}',
    '',
  ].join('\n');
}
