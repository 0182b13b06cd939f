// Small manifests the end-to-end tests apply, beside deploymentYaml (kube-sim/testing/kubectl.ts).
import { deploymentYaml, hpaYaml as hpaYamlOf } from '../kube-sim/testing/kubectl.js';

/** A Service selecting the pods labelled `app: <app>` (its own name unless told). */
export function serviceYaml(name: string, port: number, namespace?: string, app = name): string {
  return `apiVersion: v1
kind: Service
metadata:
  name: ${name}
${namespace ? `  namespace: ${namespace}\n` : ''}spec:
  selector:
    app: ${app}
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

export interface SetVersion {
  image: string;
  config: string;
  port: number;
  /** The index of the Deployment (counted over every namespace) whose image is `badImage`. */
  bad?: number;
  badImage?: string;
}

/**
 * Many objects at once: in each namespace (none: the default one) a third each Deployments of one
 * replica (app-N), ConfigMaps (config-N) and Services (service-N), `count` in all.
 */
export function objectSet(
  count: number,
  version: SetVersion,
  namespaces: readonly (string | undefined)[] = [undefined],
): string {
  const parts: string[] = [];
  let deployments = 0;
  namespaces.forEach((namespace, at) => {
    const here = Math.floor(count / namespaces.length) + (at < count % namespaces.length ? 1 : 0);
    const third = Math.floor(here / 3);
    for (let index = 0; index < here - 2 * third; index += 1) {
      const image = deployments === version.bad ? (version.badImage ?? 'xxxxxnginx:1.17') : version.image;
      parts.push(deploymentYaml(`app-${index}`, image, { replicas: 1, namespace }));
      deployments += 1;
    }
    for (let index = 0; index < third; index += 1)
      parts.push(configMapYaml(`config-${index}`, { version: version.config }, namespace));
    // service-N selects app-N's pods: a Service that selects no pod fails the apply (kinds/network/service.ts).
    for (let index = 0; index < third; index += 1)
      parts.push(serviceYaml(`service-${index}`, version.port, namespace, `app-${index}`));
  });
  return parts.join('---\n');
}

/** An HPA on Deployment web that wants 2 replicas (kube-sim's stand-in for the metrics: the sim.kguard.dev/desired-replicas annotation, controllers/hpa.ts). */
export const hpaYaml = hpaYamlOf('web', 1, 6, { desiredReplicas: 2 });
