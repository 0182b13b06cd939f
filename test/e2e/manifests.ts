// Small manifests the end-to-end tests apply, beside deploymentYaml (kube-sim/testing/kubectl.ts).

export function serviceYaml(name: string, port: number, namespace?: string): string {
  return `apiVersion: v1
kind: Service
metadata:
  name: ${name}
${namespace ? `  namespace: ${namespace}\n` : ''}spec:
  selector:
    app: ${name}
  ports:
  - name: http
    port: ${port}
    targetPort: 80
`;
}

export function configMapYaml(name: string, data: Record<string, string>, namespace?: string): string {
  const entries = Object.entries(data)
    .map(([key, value]) => `  ${key}: ${JSON.stringify(value)}`)
    .join('\n');
  return `apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}
${namespace ? `  namespace: ${namespace}\n` : ''}data:
${entries}
`;
}
