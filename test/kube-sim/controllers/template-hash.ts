// The pod-template-hash the deployment controller puts in ReplicaSet names and labels, and the
// template equality it uses to find the ReplicaSet of the current template.
//
// The real controller hashes the Go struct (FNV-32a over a spew dump) and encodes the decimal sum
// with rand.SafeEncodeString. We hash a canonical JSON form instead (sorted keys, with null, {}
// and [] dropped), because `kubectl rollout undo` sends the template back as a Go object with
// `"creationTimestamp": null` and `"resources": {}` that the stored template lacks.

export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function canonical(value: unknown): Json | undefined {
  if (value === null || value === undefined) return undefined;
  if (Array.isArray(value)) {
    const items = value.map(canonical).filter((item): item is Json => item !== undefined);
    return items.length === 0 ? undefined : items;
  }
  if (typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key])] as const)
      .filter(([, item]) => item !== undefined);
    return entries.length === 0 ? undefined : (Object.fromEntries(entries) as Json);
  }
  return value as Json;
}

/** Templates equal once the pod-template-hash label is ignored (deployment util EqualIgnoreHash). */
export function equalIgnoreHash(left: unknown, right: unknown): boolean {
  return JSON.stringify(canonical(withoutHashLabel(left))) === JSON.stringify(canonical(withoutHashLabel(right)));
}

export function templateHash(template: unknown, collisionCount = 0): string {
  let text = JSON.stringify(canonical(withoutHashLabel(template)) ?? {});
  if (collisionCount > 0) text += `#${collisionCount}`;
  return safeEncode(String(fnv32a(text)));
}

function withoutHashLabel(template: unknown): unknown {
  if (!template || typeof template !== 'object') return template;
  const copy = structuredClone(template) as { metadata?: { labels?: Record<string, string> } };
  if (copy.metadata?.labels) delete copy.metadata.labels[POD_TEMPLATE_HASH_LABEL];
  return copy;
}

function fnv32a(text: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(text, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** apimachinery rand.SafeEncodeString: maps each byte onto consonants and digits (no vowels, no 0/1/3). */
function safeEncode(text: string): string {
  const alphabet = 'bcdfghjklmnpqrstvwxz2456789';
  return [...Buffer.from(text, 'utf8')].map((byte) => alphabet[byte % alphabet.length]).join('');
}
