import { diagnoseKubectlFailure } from '../output/diagnose.js';
import type { StreamExec } from '../process/exec.js';
import { WatchEventReader, type WatchEvent } from '../channel/watch-events.js';
import { isRetryable, listedItems, selectorsOf, withQuery } from '../output/parse.js';
import type { CollectionList, CollectionQuery, WatchStream, ListWatch } from '../types.js';
import type { KubectlRunner } from './runner.js';

export function listWatch(runner: KubectlRunner): ListWatch {
  return {
    /**
     * One collection as the API server lists it (`kubectl get --raw`), with the list's
     * resourceVersion, which kubectl's own `get -o json` of several types does not keep: a watch
     * started from it misses nothing. Items get back the kind the API server leaves out of lists.
     */
    async listCollection(query: CollectionQuery): Promise<CollectionList> {
      const path = await runner.collectionPathOf(query).catch((error: unknown) => error as Error);
      if (path instanceof Error) return { ok: false, message: path.message, transient: false };
      const result = await runner.run(['get', '--raw', withQuery(path, selectorsOf(query))], {
        deadlineMs: runner.connection.readDeadlineMs,
      });
      if (result.exitCode !== 0)
        return { ok: false, message: diagnoseKubectlFailure(result).detail, transient: isRetryable(result) };
      return { ok: true, ...listedItems(result.stdout) };
    },

    /**
     * Watches one collection from `resourceVersion` (`kubectl get --raw '…?watch=1'`, which copies
     * the server's stream as it arrives), with bookmarks, until the server ends it after
     * `timeoutSeconds`. No --request-timeout: it would cut the stream.
     */
    watchCollection(
      query: CollectionQuery,
      from: { resourceVersion: string; timeoutSeconds: number },
      onEvent: (event: WatchEvent) => void,
    ): WatchStream {
      const stream = runner.stream;
      if (!stream)
        return {
          done: Promise.resolve({ ended: false, message: 'watching is not available', transient: false }),
          stop: () => undefined,
        };
      let stopRequested = false;
      let running: ReturnType<StreamExec> | undefined;
      const done = (async () => {
        const path = await runner.collectionPathOf(query).catch((error: unknown) => error as Error);
        if (path instanceof Error) return { ended: false as const, message: path.message, transient: false };
        if (stopRequested) return { ended: true as const };
        const params = {
          ...selectorsOf(query),
          watch: '1',
          resourceVersion: from.resourceVersion,
          allowWatchBookmarks: 'true',
          timeoutSeconds: String(from.timeoutSeconds),
        };
        const reader = new WatchEventReader();
        running = stream(
          runner.connection.binary,
          [...runner.connectionArgs(), 'get', '--raw', withQuery(path, params)],
          (text) => {
            for (const event of reader.push(text)) onEvent(event);
          },
        );
        const result = await running.done;
        if (!result.proxied) runner.processes += 1;
        if (result.exitCode === 0 || stopRequested) return { ended: true as const };
        return {
          ended: false as const,
          message: diagnoseKubectlFailure(result).detail,
          transient: isRetryable(result),
        };
      })();
      return {
        done,
        stop: () => {
          stopRequested = true;
          running?.stop();
        },
      };
    },
  };
}
