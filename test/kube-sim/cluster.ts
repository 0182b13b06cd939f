// Starts one simulated cluster: clock, store, API server, controllers, and a kubeconfig for
// kubectl. Everything lives in the returned object (no module state), so several clusters can
// run in one process, each on its own port with its own temp directory.

import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSimClock, type SimClock } from './clock.js';
import { startControllers } from './controllers/index.js';
import { kubeconfigFor } from './kubeconfig.js';
import { loadScenario, type Scenario, type ScenarioFileInput } from './scenario.js';
import { applyDefaults } from './server/defaults.js';
import { startApiServer, type RequestRecord } from './server/apiServer.js';
import { serveCustomResourceDefinitions } from './server/crds.js';
import { registerApiServices, unavailableGroupVersions } from './server/aggregation.js';
import type { Faults } from './server/faults.js';
import { Store } from './store.js';

export type { Faults } from './server/faults.js';

export interface ClusterOptions {
  /** 0 or absent: a free port. */
  port?: number;
  /** Simulated time runs this many times faster than wall time. */
  timeScale?: number;
  /** A scenario file (JSON or YAML) or an object; defaults fill the rest. */
  scenario?: Partial<Scenario> | ScenarioFileInput | string;
  /** false: API server only, nothing reacts to objects (for tests of the API itself). Default true. */
  controllers?: boolean;
}

export interface Cluster {
  /** http://127.0.0.1:PORT */
  url: string;
  /** A temp kubeconfig: cluster, context and user all named 'kguard-sim', namespace default. */
  kubeconfigPath: string;
  /** KUBECONFIG and KUBECACHEDIR (fresh per cluster) to merge into kubectl's environment. */
  env: Record<string, string>;
  store: Store;
  clock: SimClock;
  faults: Faults;
  /** The most recent API requests (oldest first), to check what kubectl sent. */
  requests: RequestRecord[];
  /** "METHOD /path?query" of each request as it arrives, before it is answered. */
  arrivals: string[];
  /** How many watch streams are open now (a client that went away has closed its own). */
  openWatches(): number;
  stop(): Promise<void>;
}

const INITIAL_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

export async function startCluster(options: ClusterOptions = {}): Promise<Cluster> {
  const scenario = loadScenario(options.scenario ?? {});
  const clock = createSimClock(options.timeScale ?? 1);
  const store = new Store(clock);
  const server = await startApiServer(store, clock, {
    port: options.port,
    aggregatedDiscovery: scenario.crowd.aggregatedDiscovery,
    unavailableApiServices: scenario.crowd.apiServices,
  });
  const customResources = serveCustomResourceDefinitions(store, clock);
  for (const name of INITIAL_NAMESPACES) {
    const namespace = { apiVersion: 'v1', kind: 'Namespace', metadata: { name } };
    applyDefaults(namespace);
    store.create(namespace);
  }
  registerApiServices(store, unavailableGroupVersions(scenario.crowd.apiServices), clock.nowIso());
  const controllers = options.controllers === false ? undefined : startControllers(store, clock, scenario);

  // The kubectl dispatcher caches /version per host:port, and kubectl caches discovery: a
  // fresh cache directory per cluster keeps a restarted cluster from being served stale answers.
  const directory = await mkdtemp(join(tmpdir(), 'kguard-sim-'));
  const kubeconfigPath = join(directory, 'kubeconfig');
  await writeFile(kubeconfigPath, kubeconfigFor(server.url));

  let stopped = false;
  return {
    url: server.url,
    kubeconfigPath,
    env: { KUBECONFIG: kubeconfigPath, KUBECACHEDIR: join(directory, 'cache') },
    store,
    clock,
    faults: server.faults,
    requests: server.requests,
    arrivals: server.arrivals,
    openWatches: () => server.openWatchCount(),
    async stop() {
      if (stopped) return;
      stopped = true;
      controllers?.stop();
      customResources.stop();
      clock.stopAll();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
