// Facts from outside the cluster: manifests from stdin and URLs, and the pod kguard may run in.
import { readFileSync } from 'node:fs';
import { InputError } from '../errors.js';

export async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) {
    throw new InputError('-f - reads manifests from stdin, but stdin is a terminal. Pipe the manifests in: cat app.yaml | kguard apply -f -');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function fetchUrl(url: string): Promise<string> {
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`);
    return await response.text();
  } catch (error) {
    throw new InputError(`-f ${url}: could not download the manifests (${error instanceof Error ? error.message : error}). Nothing was applied.`);
  }
}

/** The namespace kubectl's in-cluster config uses, when kguard runs in a pod; else undefined. */
export function inClusterNamespace(): string | undefined {
  if (!process.env.KUBERNETES_SERVICE_HOST) return undefined;
  if (process.env.POD_NAMESPACE) return process.env.POD_NAMESPACE;
  try {
    return readFileSync('/var/run/secrets/kubernetes.io/serviceaccount/namespace', 'utf8').trim() || 'default';
  } catch {
    return 'default';
  }
}
