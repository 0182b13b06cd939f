// Whether the user may do what a restore would do: authorization.k8s.io/v1 SelfSubjectAccessReviews,
// each POSTed through the API channel at once, or, without it, all in one kubectl process
// (`kubectl create -f - -o json` of a List: kubectl creates each item and prints each answer, in
// order). The API server answers every review and stores none
// (pkg/registry/authorization/selfsubjectaccessreview/rest.go); status.allowed is the authorizer's
// decision (RBAC: plugin/pkg/auth/authorizer/rbac/rbac.go).
import { diagnoseKubectlFailure } from './output/diagnose.js';
import type { ExecResult } from './process/exec.js';
import { jsonDocuments } from './output/parse.js';
import type { AccessAnswer, AccessQuestion } from './types.js';

/** The kubectl arguments; the reviews go on stdin. --validate=false: a review has no schema kubectl could check. */
export const REVIEW_ARGS = ['create', '-f', '-', '-o', 'json', '--validate=false'] as const;

/** One review, as `kubectl create --raw` POSTs it (through the API channel: no process of its own). */
export const REVIEW_RAW_ARGS = [
  'create',
  '--raw',
  '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
  '-f',
  '-',
] as const;

export function reviewOf({ verb, group, resource, namespace }: AccessQuestion): object {
  return {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SelfSubjectAccessReview',
    spec: { resourceAttributes: { verb, group, resource, ...(namespace ? { namespace } : {}) } },
  };
}

export function reviewsList(questions: readonly AccessQuestion[]): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'List', items: questions.map(reviewOf) });
}

/** Each question with the API server's answer; a failed kubectl is an error naming what it said. */
export function readAnswers(questions: readonly AccessQuestion[], result: ExecResult): AccessAnswer[] {
  if (result.exitCode !== 0) {
    const said = result.timedOut ? 'kubectl did not answer in time' : diagnoseKubectlFailure(result).detail;
    throw new Error(`kubectl could not ask the API server what this user may do (SelfSubjectAccessReview): ${said}`);
  }
  const answers = jsonDocuments(result.stdout) as Array<{
    spec?: { resourceAttributes?: Partial<AccessQuestion> };
    status?: { allowed?: boolean };
  }>;
  return questions.map((question) => {
    const answer = answers.find(({ spec }) => {
      const asked = spec?.resourceAttributes ?? {};
      return (
        asked.verb === question.verb &&
        (asked.group ?? '') === question.group &&
        asked.resource === question.resource &&
        (asked.namespace ?? '') === question.namespace
      );
    });
    if (!answer)
      throw new Error(`the API server did not answer whether this user may ${question.verb} ${question.resource}`);
    return { ...question, allowed: answer.status?.allowed === true };
  });
}

/**
 * Each question answered: through the API channel one request per review, all at once; without
 * it (the first review did not go through the proxy), one process for all of them.
 */
export async function reviewAccess(
  questions: readonly AccessQuestion[],
  run: (args: readonly string[], input: string) => Promise<ExecResult>,
): Promise<AccessAnswer[]> {
  const [first, ...others] = questions;
  if (!first) return [];
  const ask = (question: AccessQuestion) => run(REVIEW_RAW_ARGS, JSON.stringify(reviewOf(question)));
  const asked = await ask(first);
  if (!asked.proxied || asked.exitCode !== 0)
    return readAnswers(questions, await run(REVIEW_ARGS, reviewsList(questions)));
  const answers = [asked, ...(await Promise.all(others.map(ask)))];
  return readAnswers(
    questions,
    answers.find((answer) => answer.exitCode !== 0) ?? {
      ...asked,
      stdout: answers.map((answer) => answer.stdout).join('\n'),
    },
  );
}
