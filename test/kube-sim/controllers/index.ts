// Entry point of the controllers half (see ../CONTRACT.md): the deployment, replicaset,
// statefulset, daemonset and job controllers, the scheduler and the kubelets, all reacting to store changes a simulated step
// later and to timers on the simulation clock.

import type { SimClock } from '../clock.js';
import { resolveScenario, type Scenario } from '../scenario.js';
import type { Store } from '../store.js';
import { CaInjector } from './cainjector.js';
import { CustomResourceReconciler } from './custom-resources.js';
import { DaemonSetController } from './daemonset.js';
import { DeploymentController } from './deployment/controller.js';
import { EventRecorder } from './events.js';
import { FinalizerControllers } from './finalizers.js';
import { HorizontalPodAutoscalerController } from './hpa.js';
import { JobController } from './job.js';
import { IngressStatusController, ServiceLoadBalancerController } from './load-balancers.js';
import { Kubelets } from './kubelet/kubelet.js';
import { NodeAutoscaler } from './node-autoscaler.js';
import { registerNodes } from './nodes.js';
import { ReplicaSetController } from './replicaset.js';
import { Scheduler } from './scheduler.js';
import { StatefulSetController } from './statefulset/controller.js';
import { TtlAfterFinishedController } from './ttl-after-finished.js';
import { VolumeBinder } from './volume-binder.js';

export interface Controllers {
  stop(): void;
}

export function startControllers(store: Store, clock: SimClock, scenario: Scenario): Controllers {
  const resolved = resolveScenario(scenario);
  const recorder = new EventRecorder(store, clock);
  registerNodes(store, resolved.nodes, clock.nowIso(), resolved.kubeletVersion);
  for (const quota of resolved.quotas) {
    if (store.get('ResourceQuota', quota.namespace, quota.name)) continue;
    store.create({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: quota.name, namespace: quota.namespace },
      spec: { hard: quota.hard },
    });
  }
  const parts = [
    new DeploymentController(store, clock, recorder, resolved.timing.controllerStepMs),
    new ReplicaSetController(store, clock, recorder, resolved.timing.controllerStepMs),
    new StatefulSetController(store, clock, recorder, resolved.timing.controllerStepMs),
    new JobController(store, clock, recorder, resolved.timing.controllerStepMs),
    new DaemonSetController(store, clock, recorder, resolved),
    new CustomResourceReconciler(store, clock, resolved.timing.controllerStepMs),
    new Scheduler(store, clock, recorder, resolved),
    new Kubelets(store, clock, recorder, resolved),
    // The crowd of a real cluster (scenario-crowd.ts): each does nothing unless asked.
    new FinalizerControllers(store, clock, resolved.crowd.finalizers),
    new ServiceLoadBalancerController(store, clock, recorder, resolved.crowd.loadBalancers),
    new IngressStatusController(store, clock, resolved.crowd.loadBalancers),
    new TtlAfterFinishedController(store, clock, resolved.timing.controllerStepMs),
    new HorizontalPodAutoscalerController(store, clock, recorder, resolved),
    new CaInjector(store, clock, resolved.crowd.caInjector),
    new VolumeBinder(store, clock, recorder, resolved),
    new NodeAutoscaler(store, clock, recorder, resolved, resolved.crowd.nodeAutoscaler),
  ];
  for (const part of parts) part.start();
  return {
    stop() {
      for (const part of parts) part.stop();
    },
  };
}
