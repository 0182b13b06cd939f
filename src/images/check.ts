// Before the apply: does every image the apply asks the nodes to pull exist? Each is asked of its
// registry (registry.ts) with the credentials the kubelet would use (pull-secrets.ts,
// keyring.ts), all at once within --concurrency. "exists" goes on; "missing" refuses the run
// before anything is written (exit 1), naming the object, the container, the image and the
// registry's answer; "cannot know" (unreachable, no usable credentials, a timeout) goes on, said in
// one line: the nodes may reach, or hold credentials for, what this machine cannot.
import { InputError } from '../errors.js';
import type { Kubectl } from '../kubectl/types.js';
import type { Reporter } from '../model/events.js';
import type { ApplyOptions } from '../model/options.js';
import type { ImageVerdict } from '../model/result.js';
import { describeObject, type KubeObject } from '../objects/model.js';
import type { ImageAnswer } from './answers.js';
import { lookup } from './keyring.js';
import { pullCredentialReader } from './pull-secrets.js';
import { parseReference } from './reference.js';
import { registries, type Registries, type RegistryOptions } from './registry.js';
import { kguardVersion } from '../version.js';
import { imagesToCheck } from './templates.js';

export interface ImageCheckDeps {
  kubectl: Pick<Kubectl, 'getObject'>;
  reporter: Reporter;
  registries: Registries;
  /** A signal (SIGINT, SIGTERM, SIGHUP) aborts every registry request at once, not at its deadline. */
  signal?: AbortSignal;
}

/** The verdict of every image the apply changes; throws InputError (nothing applied) when one does not exist. */
export async function checkImages(
  wouldBe: readonly KubeObject[],
  current: ReadonlyMap<string, KubeObject>,
  { namespace, concurrency }: Pick<ApplyOptions, 'namespace' | 'concurrency'>,
  deps: ImageCheckDeps,
): Promise<ImageVerdict[]> {
  const images = imagesToCheck(wouldBe, current, namespace ?? 'default');
  if (images.length === 0) return [];
  const credentialsOf = pullCredentialReader(wouldBe, deps.kubectl);
  const asked = new Map<string, Promise<ImageAnswer>>();
  const verdicts = await mapLimited(images, Math.max(1, concurrency), async (image): Promise<ImageVerdict> => {
    const parsed = parseReference(image.image);
    const base = { object: image.object, container: image.container, image: image.image };
    if (!parsed.ok)
      return { ...base, verdict: 'unknown', detail: `kguard cannot read it as an image reference (${parsed.why})` };
    const keyring = await credentialsOf(image);
    const credentials = keyring.ok ? lookup(keyring.keyring, `${parsed.image.domain}/${parsed.image.path}`) : [];
    // One question per image and set of credentials: 50 pods of one image ask once.
    const key = JSON.stringify([parsed.image.normalized, credentials.map((credential) => credential.source)]);
    let answer = asked.get(key);
    if (!answer) {
      answer = deps.registries.ask(parsed.image, credentials);
      asked.set(key, answer);
    }
    const found = await answer;
    if (found.verdict === 'exists')
      return { ...base, verdict: 'exists', detail: `found in registry ${parsed.image.domain}` };
    if (found.verdict === 'missing') return { ...base, verdict: 'missing', detail: found.answer };
    // Without the pod's credentials, their absence is the reason to give.
    const why = !keyring.ok && /wants credentials|refuses|token server/.test(found.why) ? keyring.why : found.why;
    return { ...base, verdict: 'unknown', detail: why };
  });
  for (const { verdict, ...rest } of verdicts) deps.reporter.emit({ kind: EVENT_OF[verdict], ...rest });
  const missing = verdicts.filter((verdict) => verdict.verdict === 'missing');
  if (missing.length > 0) throw new InputError(refusal(missing));
  return verdicts;
}

const EVENT_OF = {
  exists: 'image-exists',
  missing: 'image-missing',
  unknown: 'image-not-checked',
} as const satisfies Record<ImageVerdict['verdict'], string>;

/** The check as a step of the apply: its own registry client, closed when it is done. */
export async function checkImagesStep(
  wouldBe: readonly KubeObject[],
  current: ReadonlyMap<string, KubeObject>,
  options: Pick<ApplyOptions, 'namespace' | 'concurrency' | 'requestTimeoutMs' | 'insecureRegistries'>,
  deps: Omit<ImageCheckDeps, 'registries'> & { registries?: (options: RegistryOptions) => Registries },
): Promise<ImageVerdict[]> {
  const client = (deps.registries ?? registries)({
    requestTimeoutMs: options.requestTimeoutMs,
    insecureRegistries: options.insecureRegistries ?? [],
    userAgent: `kguard/${kguardVersion()}`,
    signal: deps.signal,
  });
  try {
    return await checkImages(wouldBe, current, options, { ...deps, registries: client });
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** What is missing, where, and what next. */
export function refusal(missing: readonly ImageVerdict[]): string {
  const lines = missing.map(
    ({ object, container, image, detail }) =>
      `${describeObject(object)}, container ${container}: image "${image}" does not exist (${detail})`,
  );
  return `${lines.join('; ')}. Next: push the image or correct its name or tag (or run with --image-check=off if the registry is wrong about it); nothing was applied.`;
}

async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
