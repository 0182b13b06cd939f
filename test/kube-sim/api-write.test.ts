// Writes through the real kubectl: apply (client- and server-side), dry-run, create, scale,
// patch, delete, and the error answers kubectl turns into its messages.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from './cluster.js';
import { deploymentYaml, kubectl, kubectlPatch } from './testing/kubectl.js';

let cluster: Cluster;

beforeAll(async () => {
  cluster = await startCluster({ controllers: false });
});

afterAll(async () => {
  await cluster?.stop();
});

function storedDeployment(name: string) {
  return cluster.store.get('Deployment', 'default', name);
}

describe('kubectl apply', () => {
  it('creates, then configures with a strategic merge that keeps env and ports, then reports unchanged', async () => {
    const created = await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('apply-web', 'nginx:1.25'));
    expect(created).toMatchObject({ exitCode: 0, stdout: 'deployment.apps/apply-web created' });
    expect(storedDeployment('apply-web')?.metadata.generation).toBe(1);

    const configured = await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('apply-web', 'nginx:1.26'));
    expect(configured).toMatchObject({ exitCode: 0, stdout: 'deployment.apps/apply-web configured' });
    const container = storedDeployment('apply-web')?.spec.template.spec.containers[0];
    expect(container).toMatchObject({
      name: 'apply-web',
      image: 'nginx:1.26',
      env: [{ name: 'MODE', value: 'production' }],
      ports: [{ containerPort: 80, protocol: 'TCP' }],
    });
    expect(storedDeployment('apply-web')?.metadata.generation).toBe(2);
    const patch = cluster.requests.findLast((request) => request.method === 'PATCH');
    expect(patch?.url).toContain(
      '/apis/apps/v1/namespaces/default/deployments/apply-web?fieldManager=kubectl-client-side-apply',
    );

    const resourceVersion = storedDeployment('apply-web')?.metadata.resourceVersion;
    const unchanged = await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('apply-web', 'nginx:1.26'));
    expect(unchanged).toMatchObject({ exitCode: 0, stdout: 'deployment.apps/apply-web unchanged' });
    expect(storedDeployment('apply-web')?.metadata.resourceVersion).toBe(resourceVersion);
  });

  it('stores the other kinds a real manifest carries (Ingress, Job, HPA, ServiceAccount, PDB, RBAC)', async () => {
    const manifest = [
      'apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: extra',
      'apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: extra\nspec:\n  rules:\n  - host: extra.example\n',
      'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: extra\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: job\n        image: busybox\n',
      'apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n  name: extra\nspec:\n  scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: extra}\n  maxReplicas: 3\n',
      'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: extra\nspec:\n  maxUnavailable: 1\n',
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: extra\nrules: []\n',
    ].join('\n---\n');
    const result = await kubectl(cluster, ['apply', '-f', '-'], manifest);
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n')).toEqual([
      'serviceaccount/extra created',
      'ingress.networking.k8s.io/extra created',
      'job.batch/extra created',
      'horizontalpodautoscaler.autoscaling/extra created',
      'poddisruptionbudget.policy/extra created',
      'role.rbac.authorization.k8s.io/extra created',
    ]);
    const listed = await kubectl(cluster, ['get', 'sa,ing,job,hpa,pdb,role', '-o', 'name']);
    expect(listed.stdout.split('\n')).toHaveLength(6);
    expect((await kubectl(cluster, ['apply', '-f', '-'], manifest)).stdout).toContain('job.batch/extra unchanged');
  });

  it('defaults a Deployment like the real API server', async () => {
    await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('defaults-web', 'registry.example/app'));
    const deployment = storedDeployment('defaults-web')!;
    expect(deployment.spec).toMatchObject({
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
      template: {
        spec: {
          restartPolicy: 'Always',
          dnsPolicy: 'ClusterFirst',
          schedulerName: 'default-scheduler',
          terminationGracePeriodSeconds: 30,
          securityContext: {},
          containers: [
            {
              imagePullPolicy: 'Always',
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              resources: {},
            },
          ],
        },
      },
    });
  });

  it('applies server-side, creating a missing object', async () => {
    const created = await kubectl(
      cluster,
      ['apply', '--server-side', '-f', '-'],
      deploymentYaml('ssa-web', 'nginx:1.25'),
    );
    expect(created).toMatchObject({ exitCode: 0, stdout: 'deployment.apps/ssa-web serverside-applied' });
    const changed = await kubectl(
      cluster,
      ['apply', '--server-side', '-f', '-'],
      deploymentYaml('ssa-web', 'nginx:1.27', { replicas: 4 }),
    );
    expect(changed).toMatchObject({ exitCode: 0, stdout: 'deployment.apps/ssa-web serverside-applied' });
    expect(storedDeployment('ssa-web')?.spec).toMatchObject({
      replicas: 4,
      template: { spec: { containers: [{ image: 'nginx:1.27' }] } },
    });
  });

  it('removes on server-side apply what the same field manager no longer applies', async () => {
    const withExtraEnv = deploymentYaml('ssa-prune', 'nginx:1.25').replace(
      '          value: production\n',
      '          value: production\n        - name: DEBUG\n          value: "1"\n',
    );
    await kubectl(cluster, ['apply', '--server-side', '-f', '-'], withExtraEnv);
    expect(storedDeployment('ssa-prune')?.spec.template.spec.containers[0].env).toHaveLength(2);
    const dryRun = await kubectl(
      cluster,
      ['apply', '--server-side', '--dry-run=server', '-f', '-'],
      deploymentYaml('ssa-prune', 'nginx:1.25'),
    );
    expect(dryRun.exitCode).toBe(0);
    expect(storedDeployment('ssa-prune')?.spec.template.spec.containers[0].env).toHaveLength(2);
    await kubectl(cluster, ['apply', '--server-side', '-f', '-'], deploymentYaml('ssa-prune', 'nginx:1.25'));
    expect(storedDeployment('ssa-prune')?.spec.template.spec.containers[0].env).toEqual([
      { name: 'MODE', value: 'production' },
    ]);
    expect(storedDeployment('ssa-prune')?.spec.template.spec.containers[0].ports).toEqual([
      { containerPort: 80, protocol: 'TCP' },
    ]);
  });

  it('stores nothing with --dry-run=server but answers as if it had', async () => {
    const before = cluster.store.currentResourceVersion();
    const result = await kubectl(
      cluster,
      ['apply', '--dry-run=server', '-f', '-'],
      deploymentYaml('dry-web', 'nginx:1.25'),
    );
    expect(result).toMatchObject({ exitCode: 0, stdout: 'deployment.apps/dry-web created (server dry run)' });
    expect(storedDeployment('dry-web')).toBeUndefined();

    await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('dry-web', 'nginx:1.25'));
    const afterCreate = cluster.store.currentResourceVersion();
    expect(afterCreate).toBeGreaterThan(before);
    const dryChange = await kubectl(
      cluster,
      ['apply', '--dry-run=server', '-o', 'json', '-f', '-'],
      deploymentYaml('dry-web', 'nginx:9'),
    );
    expect(JSON.parse(dryChange.stdout)).toMatchObject({
      spec: { template: { spec: { containers: [{ image: 'nginx:9' }] } } },
    });
    expect(storedDeployment('dry-web')?.spec.template.spec.containers[0].image).toBe('nginx:1.25');
  });

  it('rejects an invalid Deployment with 422 and the real validation messages', async () => {
    const manifest = deploymentYaml('invalid-web', 'nginx:1.25').replace(
      '      labels:\n        app: invalid-web\n    spec:',
      '      labels:\n        app: other\n    spec:',
    );
    const result = await kubectl(cluster, ['apply', '-f', '-'], manifest);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain(
      'The Deployment "invalid-web" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"other"}: `selector` does not match template `labels`',
    );

    const badName = await kubectl(
      cluster,
      ['apply', '-f', '-'],
      deploymentYaml('bad-name', 'nginx').replace('name: bad-name', 'name: Bad_Name'),
    );
    expect(badName.exitCode).toBe(1);
    expect(badName.stderr).toContain(
      'The Deployment "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain',
    );

    const noImage = await kubectl(
      cluster,
      ['apply', '-f', '-'],
      deploymentYaml('noimage-web', 'x').replace('        image: x\n', ''),
    );
    expect(noImage.stderr).toContain('spec.template.spec.containers[0].image: Required value');
  });

  it("rejects unknown fields under kubectl's default strict validation, and drops them with a warning otherwise", async () => {
    const typo = deploymentYaml('typo-web', 'nginx:1.25').replace(
      '        image: nginx:1.25\n',
      '        imagee: nginx:1.25\n        image: nginx:1.25\n',
    );
    const strict = await kubectl(cluster, ['apply', '-f', '-'], typo);
    expect(strict.exitCode).toBe(1);
    expect(strict.stderr.trim()).toBe(
      'Error from server (BadRequest): error when creating "STDIN": Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].imagee"',
    );
    const warned = await kubectl(cluster, ['apply', '--validate=warn', '-f', '-'], typo);
    expect(warned).toMatchObject({
      exitCode: 0,
      stdout: 'deployment.apps/typo-web created',
      stderr: 'Warning: unknown field "spec.template.spec.containers[0].imagee"',
    });
    expect(storedDeployment('typo-web')?.spec.template.spec.containers[0]).not.toHaveProperty('imagee');
  });

  it('refuses to change an existing Deployment selector', async () => {
    await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('immutable-web', 'nginx:1.25'));
    const result = await kubectlPatch(
      cluster,
      'deployment',
      'immutable-web',
      'merge',
      '{"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}}}}}',
    );
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('spec.selector: Invalid value');
    expect(result.stderr).toContain('field is immutable');
  });
});

describe('kubectl create, scale, patch, delete', () => {
  it('answers 409 AlreadyExists to creating an existing object', async () => {
    const manifest = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: twice\ndata:\n  a: "1"\n';
    const first = await kubectl(cluster, ['create', '-f', '-'], manifest);
    expect(first).toMatchObject({ exitCode: 0, stdout: 'configmap/twice created' });
    const second = await kubectl(cluster, ['create', '-f', '-'], manifest);
    expect(second.exitCode).toBe(1);
    expect(second.stderr.trim()).toBe(
      'Error from server (AlreadyExists): error when creating "STDIN": configmaps "twice" already exists',
    );
  });

  it('answers 404 for writes into a namespace that does not exist', async () => {
    const result = await kubectl(cluster, ['apply', '-n', 'nowhere', '-f', '-'], deploymentYaml('lost-web', 'nginx'));
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('namespaces "nowhere" not found');
  });

  it('decodes the protobuf bodies of typed generators (kubectl create deployment|namespace|configmap|secret|service)', async () => {
    expect((await kubectl(cluster, ['create', 'namespace', 'typed'])).stdout).toBe('namespace/typed created');
    expect(cluster.store.get('Namespace', '', 'typed')?.status).toEqual({ phase: 'Active' });

    const deployment = await kubectl(cluster, [
      'create',
      'deployment',
      'typed-web',
      '-n',
      'typed',
      '--image=nginx:1.25',
      '--port=8080',
      '--replicas=3',
    ]);
    expect(deployment.stdout).toBe('deployment.apps/typed-web created');
    expect(cluster.store.get('Deployment', 'typed', 'typed-web')?.spec).toMatchObject({
      replicas: 3,
      selector: { matchLabels: { app: 'typed-web' } },
      template: {
        metadata: { labels: { app: 'typed-web' } },
        spec: {
          containers: [{ name: 'nginx', image: 'nginx:1.25', ports: [{ containerPort: 8080, protocol: 'TCP' }] }],
        },
      },
    });

    await kubectl(cluster, [
      'create',
      'configmap',
      'typed-config',
      '-n',
      'typed',
      '--from-literal=alpha=one',
      '--from-literal=beta=two',
    ]);
    expect(cluster.store.get('ConfigMap', 'typed', 'typed-config')?.['data']).toEqual({ alpha: 'one', beta: 'two' });
    await kubectl(cluster, ['create', 'secret', 'generic', 'typed-secret', '-n', 'typed', '--from-literal=user=admin']);
    expect(cluster.store.get('Secret', 'typed', 'typed-secret')).toMatchObject({
      type: 'Opaque',
      data: { user: 'YWRtaW4=' },
    });
    await kubectl(cluster, ['create', 'service', 'nodeport', 'typed-svc', '-n', 'typed', '--tcp=80:http']);
    expect(cluster.store.get('Service', 'typed', 'typed-svc')?.spec).toMatchObject({
      type: 'NodePort',
      selector: { app: 'typed-svc' },
      ports: [{ name: '80-http', port: 80, protocol: 'TCP', targetPort: 'http', nodePort: expect.any(Number) }],
    });
  });

  it('answers 415 to protobuf bodies of kinds it cannot decode', async () => {
    // Sent directly: whether kubectl sends protobuf depends on its version (1.32's `create quota`
    // does, 1.29's sends JSON). The envelope: magic, then runtime.Unknown{typeMeta{apiVersion, kind}, raw}.
    const typeMeta = Buffer.concat([
      Buffer.from([0x0a, 2]),
      Buffer.from('v1'),
      Buffer.from([0x12, 13]),
      Buffer.from('ResourceQuota'),
    ]);
    const body = Buffer.concat([
      Buffer.from('k8s\0'),
      Buffer.from([0x0a, typeMeta.length]),
      typeMeta,
      Buffer.from([0x12, 0]),
    ]);
    const response = await fetch(`${cluster.url}/api/v1/namespaces/default/resourcequotas`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' },
      body,
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as { message: string }).message).toContain(
      'kube-sim cannot decode protobuf for kind "ResourceQuota"',
    );
  });

  it('scales through the scale subresource', async () => {
    await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('scale-web', 'nginx:1.25'));
    const result = await kubectl(cluster, ['scale', 'deployment/scale-web', '--replicas=5']);
    expect(result).toMatchObject({ exitCode: 0, stdout: 'deployment.apps/scale-web scaled' });
    expect(storedDeployment('scale-web')?.spec.replicas).toBe(5);
    const scale = (await (
      await fetch(`${cluster.url}/apis/apps/v1/namespaces/default/deployments/scale-web/scale`)
    ).json()) as object;
    expect(scale).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      spec: { replicas: 5 },
      status: { selector: 'app=scale-web' },
    });
  });

  it('patches with strategic, merge and JSON patches and keeps status out of the main resource', async () => {
    await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('patch-web', 'nginx:1.25'));
    cluster.store.updateStatus({ ...storedDeployment('patch-web')!, status: { replicas: 2 } });
    await kubectlPatch(
      cluster,
      'deploy',
      'patch-web',
      'strategic',
      '{"spec":{"template":{"spec":{"containers":[{"name":"patch-web","image":"nginx:2"}]}}}}',
    );
    await kubectlPatch(
      cluster,
      'deploy',
      'patch-web',
      'merge',
      '{"metadata":{"labels":{"extra":"yes"}},"status":{"replicas":99}}',
    );
    await kubectlPatch(cluster, 'deploy', 'patch-web', 'json', '[{"op":"replace","path":"/spec/replicas","value":3}]');
    const deployment = storedDeployment('patch-web')!;
    expect(deployment.spec.template.spec.containers[0]).toMatchObject({ image: 'nginx:2', env: [{ name: 'MODE' }] });
    expect(deployment.metadata.labels).toMatchObject({ extra: 'yes' });
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.status).toEqual({ replicas: 2 });

    const statusPatch = await kubectlPatch(
      cluster,
      'deploy',
      'patch-web',
      'merge',
      '{"status":{"replicas":7}}',
      '--subresource=status',
    );
    expect(statusPatch.exitCode).toBe(0);
    expect(storedDeployment('patch-web')?.status).toEqual({ replicas: 7 });
  });

  it('deletes an object and its dependents', async () => {
    await kubectl(cluster, ['apply', '-f', '-'], deploymentYaml('delete-web', 'nginx:1.25'));
    const owner = storedDeployment('delete-web')!;
    cluster.store.create({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name: 'delete-web-abc',
        namespace: 'default',
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'Deployment', name: 'delete-web', uid: owner.metadata.uid!, controller: true },
        ],
      },
      spec: {},
    });
    const result = await kubectl(cluster, ['delete', 'deployment', 'delete-web']);
    // kubectl 1.35 adds where it was deleted from.
    expect(result).toMatchObject({
      exitCode: 0,
      stdout: expect.stringMatching(/^deployment\.apps "delete-web" deleted( from default namespace)?$/),
    });
    expect(storedDeployment('delete-web')).toBeUndefined();
    expect(cluster.store.get('ReplicaSet', 'default', 'delete-web-abc')).toBeUndefined();
    const again = await kubectl(cluster, ['delete', 'deployment', 'delete-web']);
    expect(again.stderr.trim()).toBe('Error from server (NotFound): deployments.apps "delete-web" not found');
  });

  it('deletes a pod bound to a node gracefully: Terminating until its kubelet removes it, unless forced', async () => {
    const boundPod = (name: string) => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default' },
      spec: { nodeName: 'node-1', terminationGracePeriodSeconds: 30, containers: [{ name: 'c', image: 'nginx' }] },
    });
    cluster.store.create(boundPod('graceful'));
    // No kubelet runs in this API-only cluster, so kubectl must not wait for the removal.
    const graceful = await kubectl(cluster, ['delete', 'pod', 'graceful', '--wait=false']);
    expect(graceful).toMatchObject({
      exitCode: 0,
      stdout: expect.stringMatching(/^pod "graceful" deleted( from default namespace)?$/),
    });
    const terminating = cluster.store.get('Pod', 'default', 'graceful')!;
    expect(terminating.metadata.deletionGracePeriodSeconds).toBe(30);
    expect(
      Date.parse(terminating.metadata.deletionTimestamp!) - Date.parse(terminating.metadata.creationTimestamp!),
    ).toBeGreaterThanOrEqual(29_000);
    expect((await kubectl(cluster, ['get', 'pod', 'graceful'])).stdout).toMatch(/graceful\s+0\/1\s+Terminating/);

    cluster.store.create(boundPod('forced'));
    const forced = await kubectl(cluster, ['delete', 'pod', 'forced', '--grace-period=0', '--force']);
    expect(forced).toMatchObject({
      exitCode: 0,
      stdout: expect.stringMatching(/^pod "forced" force deleted( from default namespace)?$/),
    });
    expect(cluster.store.get('Pod', 'default', 'forced')).toBeUndefined();
  });

  it('answers 400 to a body that is not JSON', async () => {
    const response = await fetch(`${cluster.url}/api/v1/namespaces/default/configmaps`, {
      method: 'POST',
      body: '{not json',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
  });
});

describe('the 1 MiB limit of a Secret and a ConfigMap', () => {
  // pkg/apis/core/validation: ValidateSecret and ValidateConfigMap refuse more than core.MaxSecretSize of data.
  const megabyte = 1024 * 1024;

  it("refuses a Secret whose decoded data passes 1 MiB, in the API server's words, and takes one just under it", async () => {
    const secret = (name: string, bytes: number) =>
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name },
        data: { a: Buffer.alloc(bytes - 10, 1).toString('base64'), b: Buffer.alloc(10, 2).toString('base64') },
      });
    const refused = await kubectl(cluster, ['create', '-f', '-'], secret('too-big', megabyte + 1));
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('Secret "too-big" is invalid: data: Too long: may not be more than 1048576 bytes');
    expect((await kubectl(cluster, ['create', '-f', '-'], secret('just-fits', megabyte))).exitCode).toBe(0);
  });

  it('refuses a ConfigMap whose data and binaryData pass 1 MiB together, on the path kubectl prints as []', async () => {
    const configMap = JSON.stringify({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'too-big' },
      data: { text: 'x'.repeat(megabyte - 100) },
      binaryData: { blob: Buffer.alloc(101).toString('base64') },
    });
    const refused = await kubectl(cluster, ['apply', '-f', '-'], configMap);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain(
      'ConfigMap "too-big" is invalid: []: Too long: may not be more than 1048576 bytes',
    );
  });
});
