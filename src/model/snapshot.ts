// What one look at a namespace saw: every object read (pods included), and the pods on their own,
// since every kind's engine step reads them. Types only.
import type { Pod } from '../kube.js';
import type { KubeObject } from '../objects/model.js';

export interface WorkloadSnapshot {
  /** Every object read, of every type, pods included. */
  objects: KubeObject[];
  /** The pods among them. */
  pods: Pod[];
}
