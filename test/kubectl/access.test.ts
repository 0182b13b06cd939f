// The SelfSubjectAccessReview adapter (kubectl/access.ts): one List on stdin, the answers matched
// back to the questions from what the real kubectl printed (fixtures/kubectl).
import { describe, expect, it } from 'vitest';
import { readAnswers, REVIEW_ARGS, reviewsList } from '../../src/kubectl/access.js';
import { fixtureText } from '../fixtures/load.js';

const questions = [
  { verb: 'update', group: 'apps', resource: 'deployments', namespace: 'shop' },
  { verb: 'delete', group: '', resource: 'configmaps', namespace: 'shop' },
];

describe('reviewAccess', () => {
  it('asks everything in one kubectl create of a List of reviews', () => {
    expect(REVIEW_ARGS).toEqual(['create', '-f', '-', '-o', 'json', '--validate=false']);
    expect(JSON.parse(reviewsList(questions))).toEqual({
      apiVersion: 'v1',
      kind: 'List',
      items: questions.map(({ verb, group, resource, namespace }) => ({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SelfSubjectAccessReview',
        spec: { resourceAttributes: { verb, group, resource, namespace } },
      })),
    });
  });

  it('reads each answer back by what it asked (an empty group is left out of the answer)', () => {
    const stdout = fixtureText('kubectl/create-selfsubjectaccessreviews.stdout.json');
    expect(readAnswers(questions, { exitCode: 0, stdout, stderr: '' })).toEqual([
      { ...questions[0], allowed: true },
      { ...questions[1], allowed: false },
    ]);
  });

  it('says what kubectl said when the reviews could not be asked', () => {
    expect(() => readAnswers(questions, { exitCode: 1, stdout: '', stderr: 'The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?\n' })).toThrow(
      /^kubectl could not ask the API server what this user may do \(SelfSubjectAccessReview\): /,
    );
  });
});
