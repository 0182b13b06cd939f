// Parses what `kubectl apply` prints on stdout: one line per object, e.g.
//   deployment.apps/web configured
//   service/web unchanged (server dry run)
//   configmap/probe configured (dry run)

const APPLY_LINE =
  /^(?<resource>[a-z0-9.-]+)\/(?<name>\S+) (?<action>created|configured|unchanged|serverside-applied)(?: \((?:server )?dry run\))?$/;
import type { AppliedObject, ApplyAction } from '../../model/result.js';

export function parseApplyOutput(stdout: string): AppliedObject[] {
  const applied: AppliedObject[] = [];
  for (const line of stdout.split('\n')) {
    const match = APPLY_LINE.exec(line.trim());
    if (!match?.groups) continue;
    applied.push({
      resource: match.groups.resource as string,
      name: match.groups.name as string,
      action: match.groups.action as ApplyAction,
    });
  }
  return applied;
}

/** "deployment.apps/web configured", as kubectl itself says it. */
export function describeApplied(object: AppliedObject): string {
  return `${object.resource}/${object.name} ${object.action}`;
}
