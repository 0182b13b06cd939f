// Where manifests come from besides files: stdin and URLs.
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
