// Stopping a live run through the cluster. A CD tool that gives up on a step without signalling
// its process (PipeCD's SCRIPT_RUN on cancel or stage timeout, a runner killed without grace)
// leaves kguard watching, while the pipeline's own rollback runs `kguard rollback`, maybe on
// another machine. That command writes a stop request on the run's Leases; the live run watches
// its Lease (or reads it every second where nothing is to be watched), answers on it, restores
// what its apply changed and exits 130, as on SIGTERM. The Leases are the place: every run has them
// from before its snapshot to its end, its renewals keep what another writer added (held-leases.ts
// re-reads on a 409), and `kguard status` lists them anyway.
import type { Clock } from '../clock.js';
import type { Kubectl, WatchStream } from '../kubectl/types.js';
import type { Reporter } from '../model/events.js';
import type { KubeObject } from '../objects/model.js';
import { type HeldLeases, LEASE_TYPE } from './held-leases.js';
import { leaseHolder } from './lease.js';

/** Written by `kguard rollback` on each Lease of a live run: who asked, and when (JSON). */
export const STOP_REQUEST_ANNOTATION = 'kguard.dev/stop-requested';
/** Written by the live run when it has read the request: it is restoring, and exits 130. */
export const STOP_ANSWER_ANNOTATION = 'kguard.dev/stop-answered';

/** How often a live run reads its Lease for a stop request. */
export const STOP_POLL_MS = 1_000;

export interface StopRequest {
  /** ISO time of the request, by the requester's clock. */
  at: string;
  /** `host` (and pid) of the kguard rollback that asked. */
  by: string;
}

/** The stop request a Lease carries, if any. Pure. */
export function stopRequestOf(lease: KubeObject | undefined): StopRequest | undefined {
  const text = lease?.metadata.annotations?.[STOP_REQUEST_ANNOTATION];
  if (!text) return undefined;
  try {
    const parsed = JSON.parse(text) as Partial<StopRequest>;
    return { at: String(parsed.at ?? ''), by: String(parsed.by ?? 'another kguard') };
  } catch {
    return { at: '', by: 'another kguard' };
  }
}

/** Whether the run answered the request on this Lease (its ISO time). Pure. */
export function stopAnswerOf(lease: KubeObject | undefined): string | undefined {
  return lease?.metadata.annotations?.[STOP_ANSWER_ANNOTATION] || undefined;
}

export function withAnnotation(lease: KubeObject, name: string, value: string): KubeObject {
  return {
    ...lease,
    metadata: { ...lease.metadata, annotations: { ...lease.metadata.annotations, [name]: value } },
  };
}

const leasePath = (lease: KubeObject) =>
  `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(lease.metadata.namespace ?? '')}/leases/${lease.metadata.name}`;

/**
 * Writes the stop request on each Lease the run still holds: a conditional PUT, read again and
 * written again on a 409 (the run renewed it meanwhile). Returns how many carry it now.
 */
export async function requestStop(
  kubectl: Pick<Kubectl, 'replace' | 'getObject'>,
  runId: string,
  leases: readonly KubeObject[],
  request: StopRequest,
  deadlineMs: number,
): Promise<number> {
  const written = await Promise.all(
    leases.map(async (seen) => {
      let current: KubeObject | undefined = seen;
      for (let attempt = 0; attempt < 5 && current && leaseHolder(current) === runId; attempt += 1) {
        if (stopRequestOf(current)) return true;
        const outcome = await kubectl
          .replace(
            withAnnotation(current, STOP_REQUEST_ANNOTATION, JSON.stringify(request)),
            leasePath(current),
            deadlineMs,
          )
          .catch(() => undefined);
        if (outcome?.ok) return true;
        if (outcome && !outcome.conflict) return false;
        current = await kubectl
          .getObject(LEASE_TYPE, current.metadata.namespace ?? '', current.metadata.name)
          .catch(() => current);
      }
      return false;
    }),
  );
  return written.filter(Boolean).length;
}

/**
 * The live run's side: watches `lease()` (its first held Lease) until `until` aborts, and calls
 * `onRequest` once, with the request, when one is there. One watch request serves the whole run
 * (a read each second was one request a second); when the watch ends (its timeout, a cut, an
 * expired resourceVersion) the Lease is read once and watched again, at most once a second. Where
 * nothing is to be watched (`poll`: --poll) or can be, it is read every STOP_POLL_MS. A read that
 * fails is tried again next time (a stop request is not urgent enough to end the run on an outage).
 */
export async function watchStopRequests(
  kubectl: Pick<Kubectl, 'getObject' | 'watchCollection'>,
  lease: () => KubeObject | undefined,
  deps: { clock: Pick<Clock, 'sleep'>; until: AbortSignal; poll?: boolean },
  onRequest: (request: StopRequest) => void,
): Promise<void> {
  const pause = (ms: number) => deps.clock.sleep(ms, deps.until).catch(() => undefined);
  // --poll: nothing of the run is watched (a proxy in between may break watches).
  let watching = deps.poll !== true;
  let from: string | undefined;
  // The first look a second in, as before: the watch does not start while the apply itself does.
  await pause(STOP_POLL_MS);
  while (!deps.until.aborted) {
    const held = lease();
    if (!held) {
      await pause(STOP_POLL_MS);
      continue;
    }
    const namespace = held.metadata.namespace ?? '';
    from ??= held.metadata.resourceVersion;
    let pauseMs = STOP_POLL_MS;
    if (watching && from) {
      const began = Date.now();
      const watched = await watchOnce(kubectl, held, from, deps.until);
      if ('request' in watched) {
        onRequest(watched.request);
        return;
      }
      if (deps.until.aborted) return;
      if (watched.cannotWatch) watching = false;
      pauseMs = Math.max(0, STOP_POLL_MS - (Date.now() - began));
    }
    await pause(pauseMs);
    if (deps.until.aborted) return;
    const live = await kubectl.getObject(LEASE_TYPE, namespace, held.metadata.name).catch(() => undefined);
    const request = stopRequestOf(live);
    if (request) {
      onRequest(request);
      return;
    }
    from = live?.metadata.resourceVersion ?? held.metadata.resourceVersion;
  }
}

/** One watch of the Lease from `from`: the stop request it carried, or how the watch ended. */
async function watchOnce(
  kubectl: Pick<Kubectl, 'watchCollection'>,
  held: KubeObject,
  from: string,
  until: AbortSignal,
): Promise<{ request: StopRequest } | { cannotWatch: boolean }> {
  let request: StopRequest | undefined;
  let ended = false;
  let stream: WatchStream | undefined;
  const end = () => {
    ended = true;
    stream?.stop();
  };
  stream = kubectl.watchCollection(
    {
      type: LEASE_TYPE,
      namespace: held.metadata.namespace ?? '',
      fieldSelector: `metadata.name=${held.metadata.name}`,
    },
    { resourceVersion: from, timeoutSeconds: 300 },
    (event) => {
      if (request) return;
      // An ERROR (410 Gone: `from` is too old) ends this watch: the Lease is read, then watched again.
      if (event.type === 'ERROR') end();
      if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return;
      request = stopRequestOf(event.object);
      if (request) end();
    },
  );
  if (ended) stream.stop();
  until.addEventListener('abort', end, { once: true });
  const how = await stream.done;
  until.removeEventListener('abort', end);
  if (request) return { request };
  return { cannotWatch: !how.ended && !how.transient };
}

/**
 * A run's cancel signal that a stop request aborts too: `signal` (SIGINT/SIGTERM) or a request
 * read on the run's first Lease once `watch` starts (`poll`: read, never watched, as --poll asks);
 * `end` stops reading (the run is over).
 */
export function stopOnRequest(
  signal: AbortSignal | undefined,
  how: { poll?: boolean } = {},
): {
  signal: AbortSignal;
  watch(
    kubectl: Pick<Kubectl, 'getObject' | 'watchCollection'>,
    held: HeldLeases,
    runId: string,
    deps: { clock: Pick<Clock, 'sleep'>; reporter: Reporter },
  ): void;
  end(): void;
} {
  const requested = new AbortController();
  const ended = new AbortController();
  return {
    signal: signal ? AbortSignal.any([signal, requested.signal]) : requested.signal,
    watch(kubectl, held, runId, deps) {
      void watchStopRequests(
        kubectl,
        () => held.held[0],
        { clock: deps.clock, until: ended.signal, poll: how.poll },
        (request) => {
          deps.reporter.emit({ kind: 'stop-requested', runId, by: request.by, at: request.at });
          if (!signal?.aborted) requested.abort(`stopped by kguard rollback (${request.by})`);
          // The answer tells kguard rollback that this run restores by itself.
          void held.annotate({ [STOP_ANSWER_ANNOTATION]: new Date().toISOString() }).catch(() => undefined);
        },
      );
    },
    end: () => ended.abort(),
  };
}
