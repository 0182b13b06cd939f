// The simulator's fault control from a shell: `POST /kube-sim/faults` with one JSON object naming a
// fault, the same faults tests call on `cluster.faults` (faults.ts). A person trying failures points
// kubectl at the simulator and runs, for example:
//
//   kubectl create --raw /kube-sim/faults -f - <<<'{"failNext": {"status": 503, "count": 2, "match": "^PATCH"}}'
//
// Not a Kubernetes API: the path is outside /api and /apis, so no real client ever calls it.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Faults } from './faults.js';
import { readBody, sendJson } from './responses.js';

export const CONTROL_PATH = '/kube-sim/faults';

type Control =
  | { unreachable: { ms?: number } }
  | { restore: Record<string, never> }
  | { latency: { ms: number } }
  | { failNext: { status: number; count?: number; match?: string } }
  | { slowNext: { ms: number; count?: number; match?: string } }
  | { commitThenTimeout: { count?: number; match?: string } }
  | { cutWatches: Record<string, never> }
  | { deny: { verb: string; resource: string; group?: string; namespace?: string } };

const USAGE =
  'POST one of: {"failNext":{"status":503,"count":1,"match":"^PATCH"}}, {"slowNext":{"ms":5000,"count":1,"match":"..."}}, ' +
  '{"commitThenTimeout":{"count":1,"match":"..."}}, {"latency":{"ms":200}}, {"unreachable":{"ms":3000}}, {"cutWatches":{}}, ' +
  '{"deny":{"verb":"delete","resource":"configmaps","namespace":"shop"}}, {"restore":{}}';

export async function controlFaults(req: IncomingMessage, res: ServerResponse, faults: Faults): Promise<void> {
  let control: Control;
  try {
    control = JSON.parse((await readBody(req)).toString('utf8')) as Control;
  } catch {
    return refuse(res, `not JSON. ${USAGE}`);
  }
  const pattern = (match: string | undefined) => (match === undefined ? undefined : new RegExp(match));
  if ('failNext' in control)
    faults.failNext(control.failNext.status, control.failNext.count ?? 1, pattern(control.failNext.match));
  else if ('slowNext' in control)
    faults.slowNext(control.slowNext.ms, control.slowNext.count ?? 1, pattern(control.slowNext.match));
  else if ('commitThenTimeout' in control)
    faults.commitThenTimeout(control.commitThenTimeout.count ?? 1, pattern(control.commitThenTimeout.match));
  else if ('latency' in control) faults.latency(control.latency.ms);
  else if ('cutWatches' in control) faults.cutWatches();
  else if ('deny' in control)
    faults.deny(control.deny.verb, control.deny.resource, {
      group: control.deny.group,
      namespace: control.deny.namespace,
    });
  else if ('restore' in control) await faults.restore();
  else if ('unreachable' in control) {
    // Answer first: the server stops listening right after.
    sendJson(res, 202, { ok: true, fault: 'unreachable' });
    setTimeout(() => void faults.unreachable(control.unreachable.ms ?? 5_000), 50);
    return;
  } else return refuse(res, `unknown fault. ${USAGE}`);
  sendJson(res, 201, { ok: true, fault: Object.keys(control)[0] });
}

/** A Status body, as kubectl prints it: `Error from server (BadRequest): <message>`. */
function refuse(res: ServerResponse, message: string): void {
  sendJson(res, 400, {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: 'BadRequest',
    code: 400,
  });
}
