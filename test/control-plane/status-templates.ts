// The kubelet's pod status shapes as kwok Go templates over the pod (kwok renders them with
// sprig's functions and patches the result into .status): pkg/kubelet/kubelet_pods.go
// generateAPIPodStatus, kuberuntime_container.go, images/image_manager.go, eviction/helpers.go.

export const EXIT_CODE = 'sim.kguard.dev/exit-code';

export interface StatusShape {
  phase: 'Pending' | 'Running' | 'Succeeded' | 'Failed';
  sandbox: boolean;
  ready: boolean;
  /** Which container-status template to use; see containerStatus(). */
  containers: string;
  /** For pulls: the containers whose image matches this regex fail; the others run. */
  regex?: string;
  /** For pulls: the Go template expression of the pull error. */
  pullError?: string;
}

/** A pod status as the kubelet writes it, as a kwok Go template over the pod. */
export function podStatus(shape: StatusShape): string {
  const readyStatus = shape.ready ? '"True"' : '"False"';
  const finished = { Succeeded: 'PodCompleted', Failed: 'PodFailed' }[shape.phase as string];
  // kwok patches the status (strategic merge: conditions by type), so a condition that turns True
  // must clear the reason and message it had, as the kubelet's full status write does.
  const notReady = shape.ready
    ? `  reason: ""
  message: ""
`
    : `  reason: ${finished ?? 'ContainersNotReady'}
  message: ${finished ? '""' : `'containers with unready status: [{{ range $i, $c := .spec.containers }}{{ if $i }} {{ end }}{{ $c.name }}{{ end }}]'`}
`;
  return `{{ $now := Now }}{{ $root := . }}
conditions:
${sandboxCondition(shape.sandbox ? undefined : finished ? 'pod sandbox is not ready' : 'no pod sandbox exists')}- type: Initialized
  status: "True"
  lastProbeTime: null
  lastTransitionTime: {{ $now | Quote }}
  reason: ${shape.phase === 'Succeeded' ? 'PodCompleted' : '""'}
  message: ""
- type: Ready
  status: ${readyStatus}
  lastProbeTime: null
  lastTransitionTime: {{ $now | Quote }}
${notReady}- type: ContainersReady
  status: ${readyStatus}
  lastProbeTime: null
  lastTransitionTime: {{ $now | Quote }}
${notReady}containerStatuses:
{{ range $i, $c := .spec.containers }}
{{ $old := dict }}{{ if $root.status.containerStatuses }}{{ if lt $i (len $root.status.containerStatuses) }}{{ $old = index $root.status.containerStatuses $i }}{{ end }}{{ end }}
{{ $restarts := or $old.restartCount 0 }}
- name: {{ $c.name | Quote }}
  image: {{ $c.image | Quote }}
${containerStatus(shape)}
{{ end }}
hostIP: {{ NodeIPWith .spec.nodeName | Quote }}
hostIPs:
- ip: {{ NodeIPWith .spec.nodeName | Quote }}
${
  shape.sandbox
    ? `podIP: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
podIPs:
- ip: {{ PodIPWith .spec.nodeName ( or .spec.hostNetwork false ) ( or .metadata.uid "" ) ( or .metadata.name "" ) ( or .metadata.namespace "" ) | Quote }}
`
    : ''
}phase: ${shape.phase}
startTime: {{ or .status.startTime $now | Quote }}
`;
}

/** The container-status body for each shape, inside `range $i, $c := .spec.containers`. */
function containerStatus(shape: StatusShape): string {
  const imageId = `{{ printf "%s@sha256:%s" (regexReplaceAll ":[^/:]+$" $c.image "") (sha256sum $c.image) | Quote }}`;
  const containerId = (restarts: string) =>
    `{{ printf "containerd://%s" (sha256sum (printf "%s/%s/%v" $root.metadata.uid $c.name ${restarts})) | Quote }}`;
  const exitCode = `{{ or (index (or $root.metadata.annotations dict) "${EXIT_CODE}") "1" }}`;
  const podRef = '{{ $root.metadata.name }}_{{ $root.metadata.namespace }}({{ $root.metadata.uid }})';
  const running = (restarts: string, ready: boolean) => `  imageID: ${imageId}
  containerID: ${containerId(restarts)}
  ready: ${ready}
  started: true
  restartCount: {{ ${restarts} }}
  state:
    running:
      startedAt: {{ $now | Quote }}`;
  // A terminated container (ContainerStateTerminated) as its `key`: state, or lastState.
  const terminatedAs = (key: string, code: string, reason: string, restarts: string) => `  ${key}:
    terminated:
      exitCode: ${code}
      reason: ${reason}
      containerID: ${containerId(restarts)}
      startedAt: {{ dig "state" "running" "startedAt" $now $old | Quote }}
      finishedAt: {{ $now | Quote }}`;
  const lastTerminated = (restarts: string) => terminatedAs('lastState', exitCode, 'Error', restarts);
  const terminated = (code: string, reason: string) => `  imageID: ${imageId}
  containerID: ${containerId('$restarts')}
  ready: false
  started: false
  restartCount: {{ $restarts }}
  lastState: {}
${terminatedAs('state', code, reason, '$restarts')}`;
  switch (shape.containers.split(' ')[0]) {
    case 'waiting':
      return `  imageID: ""
  ready: false
  started: false
  restartCount: 0
  lastState: {}
  state:
    waiting:
      reason: ContainerCreating`;
    case 'running':
      return `${running('$restarts', shape.ready)}
  lastState: {{ toJson (or $old.lastState dict) }}`;
    case 'pull': {
      const reason = shape.containers.split(' ')[1]!;
      const message =
        reason === 'ImagePullBackOff'
          ? `{{ printf "Back-off pulling image %q: ErrImagePull: %s" $c.image ${shape.pullError} | Quote }}`
          : `{{ ${shape.pullError} | Quote }}`;
      return `{{ if regexMatch ${JSON.stringify(shape.regex ?? '^$')} $c.image }}
  imageID: ""
  ready: false
  started: false
  restartCount: 0
  lastState: {}
  state:
    waiting:
      reason: ${reason}
      message: ${message}
{{ else }}
${running('0', false)}
  lastState: {}
{{ end }}`;
    }
    case 'crashed':
      // Simplified: the kubelet restarts the first exit at once and only later ones wait in
      // CrashLoopBackOff; here every exit does, with the back-off the kubelet would print.
      return `  imageID: ${imageId}
  containerID: ${containerId('$restarts')}
  ready: false
  started: false
  restartCount: {{ add $restarts 1 }}
${lastTerminated('$restarts')}
  state:
    waiting:
      reason: CrashLoopBackOff
      message: {{ printf "back-off %s restarting failed container=%s pod=${podRef}" (ternary "10s" "20s" (eq (int $restarts) 0)) $c.name | Quote }}`;
    case 'restarted':
      return `${running('$restarts', false)}
  lastState: {{ toJson (or $old.lastState dict) }}`;
    case 'exited':
      return terminated(exitCode, 'Error');
    case 'completed':
      return terminated('0', 'Completed');
    default:
      throw new Error(`unknown container shape ${shape.containers}`);
  }
}

/**
 * PodReadyToStartContainers as a v1.37.2 kubelet writes it (status/generate.go
 * GeneratePodReadyToStartContainersCondition): True, or False with reason PodSandboxNotReady and
 * kuberuntime/util/util.go PodSandboxChanged's message: `no pod sandbox exists` before the sandbox
 * is made, `pod sandbox is not ready` once the kubelet stopped it for a pod that ended
 * (kube-sim/controllers/kubelet/fixtures/evicted-exit-0.pod.json). kwok patches conditions by
 * type, so True clears the reason and message.
 */
function sandboxCondition(notReady: string | undefined): string {
  return `- type: PodReadyToStartContainers
  status: ${notReady ? '"False"' : '"True"'}
  lastProbeTime: null
  lastTransitionTime: {{ $now | Quote }}
  reason: ${notReady ? 'PodSandboxNotReady' : '""'}
  message: ${notReady ? JSON.stringify(notReady) : '""'}
`;
}

export function evictedStatus(): string {
  return `{{ $now := Now }}{{ $root := . }}
{{ $c0 := index .spec.containers 0 }}
{{ $limit := dig "resources" "limits" "ephemeral-storage" "0" $c0 }}
conditions:
${sandboxCondition('pod sandbox is not ready')}- type: DisruptionTarget
  status: "True"
  reason: TerminationByKubelet
  message: {{ printf "Container %s exceeded its local ephemeral storage limit %q. " $c0.name $limit | Quote }}
  lastProbeTime: null
  lastTransitionTime: {{ $now | Quote }}
- type: Ready
  status: "False"
  reason: PodFailed
  message: ""
  lastProbeTime: null
  lastTransitionTime: {{ $now | Quote }}
- type: ContainersReady
  status: "False"
  reason: PodFailed
  message: ""
  lastProbeTime: null
  lastTransitionTime: {{ $now | Quote }}
phase: Failed
reason: Evicted
message: {{ printf "Container %s exceeded its local ephemeral storage limit %q. " $c0.name $limit | Quote }}
`;
}
