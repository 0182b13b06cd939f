// Manifests from a URL: downloaded once, with a deadline and a size limit, so a slow or endless
// server cannot hang the run and what kubectl applies is what kguard checked.
import { InputError } from '../errors.js';

export interface DownloadLimits {
  deadlineMs: number;
  maxBytes: number;
}

export const DEFAULT_DOWNLOAD_LIMITS: DownloadLimits = { deadlineMs: 30_000, maxBytes: 16 * 1024 * 1024 };

export async function download(url: string, limits: DownloadLimits = DEFAULT_DOWNLOAD_LIMITS): Promise<Uint8Array> {
  const fail = (why: string) =>
    new InputError(`-f ${url}: could not download the manifests (${why}). Check the URL; nothing was applied.`);
  let response: Response;
  const signal = AbortSignal.timeout(limits.deadlineMs);
  try {
    response = await fetch(url, { signal, redirect: 'follow' });
  } catch (error) {
    throw fail(causeOf(error, limits.deadlineMs));
  }
  if (!response.ok) throw fail(`HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`);
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of response.body ?? []) {
      size += chunk.byteLength;
      if (size > limits.maxBytes) {
        await response.body?.cancel().catch(() => undefined);
        throw fail(`larger than ${limits.maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw fail(causeOf(error, limits.deadlineMs));
  }
  return Buffer.concat(chunks);
}

/** fetch() says only "fetch failed"; the reason is on error.cause (ECONNREFUSED, ENOTFOUND...). */
function causeOf(error: unknown, deadlineMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no complete answer within ${deadlineMs / 1000}s`;
  }
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  if (cause?.code) return `${cause.code}${cause.message ? `: ${cause.message}` : ''}`;
  return error instanceof Error ? error.message : String(error);
}
