// The restricted user's rights: in namespace default, everything a kguard run touches, except
// deleting ConfigMaps (so an apply that creates one cannot be restored: kguard must refuse it).
// Cluster-wide it has only what every authenticated user has (discovery, SelfSubjectAccessReviews).

const NAMESPACE = 'default';

export function restrictedRbac(user: string): [path: string, object: unknown][] {
  const everything = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
  return [
    [
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/roles`,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: 'kguard-restricted', namespace: NAMESPACE },
        rules: [
          { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'patch'] },
          {
            apiGroups: [''],
            resources: [
              'pods',
              'pods/log',
              'events',
              'services',
              'secrets',
              'serviceaccounts',
              'persistentvolumeclaims',
            ],
            verbs: everything,
          },
          {
            apiGroups: ['apps'],
            resources: [
              'deployments',
              'deployments/scale',
              'replicasets',
              'statefulsets',
              'daemonsets',
              'controllerrevisions',
            ],
            verbs: everything,
          },
          { apiGroups: ['batch'], resources: ['jobs', 'cronjobs'], verbs: everything },
          { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: everything },
          { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: ['get', 'list', 'watch'] },
        ],
      },
    ],
    [
      `/apis/rbac.authorization.k8s.io/v1/namespaces/${NAMESPACE}/rolebindings`,
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: 'kguard-restricted', namespace: NAMESPACE },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'kguard-restricted' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
      },
    ],
  ];
}
