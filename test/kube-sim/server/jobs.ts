// What the API server does to a batch/v1 Job beyond plain defaulting: the job registry strategy
// generates its selector at creation (pkg/registry/batch/job/strategy.go generateSelector), and
// validation (pkg/apis/batch/validation/validation.go) requires restartPolicy OnFailure or Never
// and refuses any change of the pod template after creation (ValidateJobSpecUpdate →
// validatePodTemplateUpdate → ValidateImmutableField: "field is immutable").

import type { StatusCause } from '../errors.js';
import { jsonEqual } from '../json.js';
import { matchesLabelSelector, type LabelSelectorObject } from '../selectors.js';
import type { KubeObject } from '../types.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** batch.ControllerUidLabel / JobNameLabel and their legacy (unprefixed) forms, all written on the template. */
export const CONTROLLER_UID_LABEL = 'batch.kubernetes.io/controller-uid';
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';
const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';
const LEGACY_JOB_NAME_LABEL = 'job-name';

/**
 * generateSelector, unless spec.manualSelector is true: the template gets job-name and
 * controller-uid labels (both forms; labels the user set are left alone), and the selector
 * matches `batch.kubernetes.io/controller-uid=<uid>`, which only this Job's pods carry.
 */
export function prepareJobForCreate(job: KubeObject, uid: string): void {
  const spec: Json = (job.spec ??= {});
  if (spec.manualSelector === true) return;
  spec.manualSelector ??= false;
  spec.template ??= {};
  spec.template.metadata ??= {};
  const labels: Record<string, string> = (spec.template.metadata.labels ??= {});
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) labels[key] ??= job.metadata.name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) labels[key] ??= uid;
  spec.selector ??= {};
  spec.selector.matchLabels ??= {};
  spec.selector.matchLabels[CONTROLLER_UID_LABEL] ??= uid;
  // SetDefaults_Job copies the template labels onto a Job without labels; the storage decodes
  // with defaulting, so what the server returns already has the generated ones.
  if (Object.keys(job.metadata.labels ?? {}).length === 0) job.metadata.labels = { ...labels };
}

/** validateJobSpec (restart policy) and, on update, ValidateJobSpecUpdate (immutable fields). */
export function validateJob(job: KubeObject, previous: KubeObject | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec: Json = job.spec ?? {};
  const restartPolicy = spec.template?.spec?.restartPolicy;
  if (restartPolicy !== 'OnFailure' && restartPolicy !== 'Never') {
    causes.push({
      reason: 'FieldValueNotSupported',
      field: 'spec.template.spec.restartPolicy',
      message: `Unsupported value: ${JSON.stringify(restartPolicy ?? '')}: supported values: "OnFailure", "Never"`,
    });
  }
  if (!previous) return [...validateGeneratedSelector(job), ...causes];
  const before: Json = previous.spec ?? {};
  if (!jsonEqual(spec.selector, before.selector))
    causes.push(immutable('spec.selector', goLabelSelector(spec.selector)));
  if (!jsonEqual(spec.template, before.template))
    causes.push(immutable('spec.template', goPodTemplateSpec(spec.template ?? {})));
  if (!jsonEqual(spec.completionMode, before.completionMode))
    causes.push(
      immutable(
        'spec.completionMode',
        `(*batch.CompletionMode)(${spec.completionMode ? JSON.stringify(spec.completionMode) : 'nil'})`,
      ),
    );
  return causes;
}

/**
 * validateGeneratedSelector (validation.go, RequirePrefixedLabels on create): unless
 * manualSelector is true, the template must carry this Job's own uid and name and the selector
 * must select them. generateSelector fills only labels that are missing, so a Job created from a
 * copy of another (its `controller-uid` labels and selector name the old uid) is refused:
 * `The Job "x" is invalid: [spec.template.metadata.labels[controller-uid]: Invalid value:
 * map[string]string{…}: must be '<new uid>', …, spec.selector: Invalid value:
 * v1.LabelSelector{…}: `selector` not auto-generated]`.
 */
function validateGeneratedSelector(job: KubeObject): StatusCause[] {
  const spec: Json = job.spec ?? {};
  if (spec.manualSelector === true || !spec.selector) return [];
  const uid = job.metadata.uid ?? '';
  const name = job.metadata.name;
  const labels: Record<string, string> | undefined = spec.template?.metadata?.labels;
  const causes: StatusCause[] = [];
  const hasLabel = (key: string, expected: string): void => {
    const field = `spec.template.metadata.labels[${key}]`;
    if (labels?.[key] === undefined)
      causes.push({ reason: 'FieldValueRequired', field, message: `Required value: must be '${expected}'` });
    else if (labels[key] !== expected)
      causes.push({
        reason: 'FieldValueInvalid',
        field,
        message: `Invalid value: ${goStringMap(labels)}: must be '${expected}'`,
      });
  };
  hasLabel(LEGACY_CONTROLLER_UID_LABEL, uid);
  hasLabel(LEGACY_JOB_NAME_LABEL, name);
  hasLabel(CONTROLLER_UID_LABEL, uid);
  hasLabel(JOB_NAME_LABEL, name);
  const expected: Record<string, string> = {
    [CONTROLLER_UID_LABEL]: uid,
    [JOB_NAME_LABEL]: name,
    [LEGACY_CONTROLLER_UID_LABEL]: uid,
    [LEGACY_JOB_NAME_LABEL]: name,
  };
  if (!matchesLabelSelector(spec.selector as LabelSelectorObject, expected)) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.selector',
      message: `Invalid value: ${goLabelSelector(spec.selector)}: \`selector\` not auto-generated`,
    });
  }
  return causes;
}

function immutable(field: string, value: string): StatusCause {
  return { reason: 'FieldValueInvalid', field, message: `Invalid value: ${value}: field is immutable` };
}

function goStringMap(map: Record<string, string> | undefined): string {
  if (!map) return 'map[string]string(nil)';
  const entries = Object.keys(map)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${JSON.stringify(map[key])}`);
  return `map[string]string{${entries.join(', ')}}`;
}

function goStrings(list: unknown): string {
  return Array.isArray(list)
    ? `[]string{${list.map((item) => JSON.stringify(String(item))).join(', ')}}`
    : '[]string(nil)';
}

function goLabelSelector(selector: Json | undefined): string {
  if (!selector) return '(*v1.LabelSelector)(nil)';
  // field.Error prints a pointer's value (ErrorBody dereferences it), hence no `&`.
  return `v1.LabelSelector{MatchLabels:${goStringMap(selector.matchLabels)}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}`;
}

/**
 * The start of Go's %#v of the internal core.PodTemplateSpec, as field.Invalid prints it: the
 * ObjectMeta exactly, the PodSpec with the fields a person needs to see what changed (the real
 * dump goes on through every PodSpec and Container field; this one stops after them).
 */
export function goPodTemplateSpec(template: Json): string {
  const metadata: Json = template.metadata ?? {};
  const objectMeta =
    `v1.ObjectMeta{Name:${JSON.stringify(metadata.name ?? '')}, GenerateName:"", Namespace:"", SelfLink:"", UID:"", ResourceVersion:"", Generation:0, ` +
    `CreationTimestamp:time.Date(1, time.January, 1, 0, 0, 0, 0, time.UTC), DeletionTimestamp:<nil>, DeletionGracePeriodSeconds:(*int64)(nil), ` +
    `Labels:${goStringMap(metadata.labels)}, Annotations:${goStringMap(metadata.annotations)}, OwnerReferences:[]v1.OwnerReference(nil), ` +
    `Finalizers:[]string(nil), ManagedFields:[]v1.ManagedFieldsEntry(nil)}`;
  const spec: Json = template.spec ?? {};
  const container = (c: Json) =>
    `core.Container{Name:${JSON.stringify(c.name ?? '')}, Image:${JSON.stringify(c.image ?? '')}, Command:${goStrings(c.command)}, Args:${goStrings(c.args)}, ` +
    `WorkingDir:${JSON.stringify(c.workingDir ?? '')}, ImagePullPolicy:${JSON.stringify(c.imagePullPolicy ?? '')}}`;
  const containers = (list: unknown) =>
    Array.isArray(list) && list.length > 0
      ? `[]core.Container{${list.map(container).join(', ')}}`
      : '[]core.Container(nil)';
  const podSpec =
    `core.PodSpec{Volumes:[]core.Volume(nil), InitContainers:${containers(spec.initContainers)}, Containers:${containers(spec.containers)}, ` +
    `RestartPolicy:${JSON.stringify(spec.restartPolicy ?? '')}, TerminationGracePeriodSeconds:(*int64)(${spec.terminationGracePeriodSeconds === undefined ? 'nil' : '0xc000a1b2c8'}), ` +
    `DNSPolicy:${JSON.stringify(spec.dnsPolicy ?? '')}, ServiceAccountName:${JSON.stringify(spec.serviceAccountName ?? '')}, SchedulerName:${JSON.stringify(spec.schedulerName ?? '')}}`;
  return `core.PodTemplateSpec{ObjectMeta:${objectMeta}, Spec:${podSpec}}`;
}
