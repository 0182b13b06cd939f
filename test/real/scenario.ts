// The real suite's scenario, in kube-sim's format: which images the kwok kubelets fail to pull.
import type { ScenarioFileInput } from '../kube-sim/scenario.js';

export const MISSING_IMAGE = 'nginx:9.99';
export const NO_REPOSITORY_IMAGE = 'xxxxxnginx:1.17';

export const REAL_SCENARIO: ScenarioFileInput = {
  nodes: { count: 2 },
  registry: { [MISSING_IMAGE]: 'missing', xxxxxnginx: 'no-repository' },
};

/** The taint the suite's real node registers with: only real-node tests' pods tolerate it (real-pods.ts). */
export const REAL_NODE_TAINT = { key: 'kguard.dev/real-node', value: 'true', effect: 'NoSchedule' } as const;
