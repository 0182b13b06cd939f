// The output of a watch, read as it arrives: `{"type": …, "object": …}` documents, one per event.
// The API server writes one JSON document per line (`kubectl get --raw '…?watch=1'` copies its
// bytes); `kubectl get -w -o json --output-watch-events` prints the same documents. The reader
// does not rely on line breaks: it splits on whole JSON documents, so a chunk may end anywhere.
import type { KubeObject } from '../../objects/model.js';

/** A change to one object, a progress mark, or the server's refusal (a Status). */
export type WatchEvent =
  | { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: KubeObject }
  /** Nothing this watch selects changed up to this resourceVersion (allowWatchBookmarks). */
  | { type: 'BOOKMARK'; resourceVersion: string }
  | { type: 'ERROR'; status: WatchStatus };

export interface WatchStatus {
  code?: number;
  reason?: string;
  message?: string;
}

/** Splits a stream of JSON documents into events; hand it every chunk in order. */
export class WatchEventReader {
  private buffered = '';
  /** Where the scan stopped in `buffered`, and its state there. */
  private scanned = 0;
  private depth = 0;
  private inString = false;
  private escaped = false;
  private start = -1;

  push(chunk: string): WatchEvent[] {
    this.buffered += chunk;
    const events: WatchEvent[] = [];
    let consumed = 0;
    for (let index = this.scanned; index < this.buffered.length; index += 1) {
      const char = this.buffered[index];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (char === '\\') this.escaped = true;
        else if (char === '"') this.inString = false;
        continue;
      }
      if (char === '"') this.inString = true;
      else if (char === '{') {
        if (this.depth === 0) this.start = index;
        this.depth += 1;
      } else if (char === '}' && this.depth > 0) {
        this.depth -= 1;
        if (this.depth === 0) {
          const event = watchEventOf(JSON.parse(this.buffered.slice(this.start, index + 1)));
          if (event) events.push(event);
          consumed = index + 1;
        }
      }
    }
    // Keep only the unfinished document; the scan resumes where it stopped.
    this.buffered = this.buffered.slice(consumed);
    this.start = this.depth > 0 ? this.start - consumed : -1;
    this.scanned = this.buffered.length;
    return events;
  }
}

/** One watch document as an event; undefined for anything else. */
export function watchEventOf(value: unknown): WatchEvent | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { type, object } = value as { type?: unknown; object?: unknown };
  if (typeof object !== 'object' || object === null) return undefined;
  if (type === 'ADDED' || type === 'MODIFIED' || type === 'DELETED') return { type, object: object as KubeObject };
  if (type === 'BOOKMARK') {
    const resourceVersion = (object as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion;
    return typeof resourceVersion === 'string' ? { type, resourceVersion } : undefined;
  }
  if (type === 'ERROR') {
    const { code, reason, message } = object as { code?: unknown; reason?: unknown; message?: unknown };
    return {
      type,
      status: {
        code: typeof code === 'number' ? code : undefined,
        reason: typeof reason === 'string' ? reason : undefined,
        message: typeof message === 'string' ? message : undefined,
      },
    };
  }
  return undefined;
}

/**
 * The resourceVersion a watch started from is older than the server's history: 410 Gone with
 * reason Expired (the watch cache's "too old resource version"), or Gone from etcd itself
 * (apimachinery errors.IsResourceExpired / IsGone). The only cure is a new list.
 */
export function isExpired(status: WatchStatus): boolean {
  return (
    status.code === 410 ||
    status.reason === 'Expired' ||
    status.reason === 'Gone' ||
    /too old resource version/.test(status.message ?? '')
  );
}
