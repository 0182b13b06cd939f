// Facts from outside the cluster: manifests from stdin and URLs, and the pod kguard may run in.
import { InputError } from '../errors.js';

export async function readStdin(): Promise<Uint8Array> {
  if (process.stdin.isTTY) {
    throw new InputError('-f - reads manifests from stdin, but stdin is a terminal. Pipe the manifests in: cat app.yaml | kguard apply -f -');
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  // The bytes as they came: kubectl decodes them (UTF-16 with a byte-order mark included).
  return Buffer.concat(chunks);
}
