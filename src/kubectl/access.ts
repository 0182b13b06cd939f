// Whether the user may do what a restore would do: authorization.k8s.io/v1 SelfSubjectAccessReviews,
// all in one kubectl process (`kubectl create -f - -o json` of a List: kubectl creates each item
// and prints each answer, in order). The API server answers every review and stores none
// (pkg/registry/authorization/selfsubjectaccessreview/rest.go); status.allowed is the authorizer's
// decision (RBAC: plugin/pkg/auth/authorizer/rbac/rbac.go).
import { diagnoseKubectlFailure } from './diagnose.js';
import type { ExecResult } from './exec.js';
import { jsonDocuments } from './parse.js';
import type { AccessAnswer, AccessQuestion } from './types.js';

/** The kubectl arguments; the reviews go on stdin. --validate=false: a review has no schema kubectl could check. */
export const REVIEW_ARGS = ['create', '-f', '-', '-o', 'json', '--validate=false'] as const;

export function reviewsList(questions: readonly AccessQuestion[]): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'List',
    items: questions.map(({ verb, group, resource, namespace }) => ({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: { resourceAttributes: { verb, group, resource, ...(namespace ? { namespace } : {}) } },
    })),
  });
}

/** Each question with the API server's answer; a failed kubectl is an error naming what it said. */
export function readAnswers(questions: readonly AccessQuestion[], result: ExecResult): AccessAnswer[] {
  if (result.exitCode !== 0) {
    const said = result.timedOut ? 'kubectl did not answer in time' : diagnoseKubectlFailure(result).detail;
    throw new Error(`kubectl could not ask the API server what this user may do (SelfSubjectAccessReview): ${said}`);
  }
  const answers = jsonDocuments(result.stdout) as Array<{ spec?: { resourceAttributes?: Partial<AccessQuestion> }; status?: { allowed?: boolean } }>;
  return questions.map((question) => {
    const answer = answers.find(({ spec }) => {
      const asked = spec?.resourceAttributes ?? {};
      return asked.verb === question.verb && (asked.group ?? '') === question.group && asked.resource === question.resource && (asked.namespace ?? '') === question.namespace;
    });
    if (!answer) throw new Error(`the API server did not answer whether this user may ${question.verb} ${question.resource}`);
    return { ...question, allowed: answer.status?.allowed === true };
  });
}
