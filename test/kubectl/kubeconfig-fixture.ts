// A kubeconfig of two contexts (prod, with a namespace and an exec plugin user; dev), for the
// tests of what kguard reads of a kubeconfig file: names only, never credentials.
export const kubeconfigText = (current: string): string => `apiVersion: v1
kind: Config
clusters:
- name: prod-cluster
  cluster: { server: https://prod.example:6443 }
- name: dev-cluster
  cluster: { server: https://dev.example:6443 }
contexts:
- name: prod
  context: { cluster: prod-cluster, user: deployer, namespace: shop }
- name: dev
  context: { cluster: dev-cluster, user: dev-user }
current-context: ${current}
users:
- name: deployer
  user:
    exec: { apiVersion: client.authentication.k8s.io/v1, command: get-token }
- name: dev-user
  user: { token: abc }
`;
