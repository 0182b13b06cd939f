// What every request handler of one API server instance shares.

import type { ServerResponse } from 'node:http';
import type { SimClock } from '../clock.js';
import type { Store } from '../store.js';
import type { WatchHistory } from './watchHistory.js';

export interface ApiContext {
  store: Store;
  /** Table cells (AGE, LAST SEEN) are computed against simulated time. */
  clock: SimClock;
  history: WatchHistory;
  /** Every open watch response, so the server can end them on stop or on a cut-watches fault. */
  openWatches: Set<ServerResponse>;
}
