// The SelfSubjectAccessReview adapter (kubectl/access.ts): one List on stdin, the answers matched
// back to the questions from what the real kubectl printed (fixtures/kubectl).
import { describe, expect, it } from 'vitest';
import { readAnswers, reviewAccess, REVIEW_ARGS, reviewsList } from '../../src/kubectl/access.js';
import type { ExecResult } from '../../src/kubectl/process/exec.js';
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
    expect(() =>
      readAnswers(questions, {
        exitCode: 1,
        stdout: '',
        stderr: 'The connection to the server 127.0.0.1:6443 was refused - did you specify the right host or port?\n',
      }),
    ).toThrow(/^kubectl could not ask the API server what this user may do \(SelfSubjectAccessReview\): /);
  });
});

describe('reviewAccess: through the API channel or one process', () => {
  const answer = (input: string, allowed: boolean) => {
    const review = JSON.parse(input) as { spec: unknown };
    return JSON.stringify({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SelfSubjectAccessReview',
      spec: review.spec,
      status: { allowed },
    });
  };

  it('POSTs each review through the proxy, all at once, when the first went through it', async () => {
    const calls: string[][] = [];
    const run = async (args: readonly string[], input: string): Promise<ExecResult> => {
      calls.push([...args]);
      const allowed = !input.includes('"delete"');
      return { exitCode: 0, stdout: answer(input, allowed), stderr: '', proxied: true };
    };
    expect(await reviewAccess(questions, run)).toEqual([
      { ...questions[0], allowed: true },
      { ...questions[1], allowed: false },
    ]);
    expect(calls).toEqual([
      ['create', '--raw', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', '-f', '-'],
      ['create', '--raw', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', '-f', '-'],
    ]);
  });

  it('asks all of them in one kubectl process when the first did not go through the proxy', async () => {
    const calls: string[][] = [];
    const run = async (args: readonly string[], input: string): Promise<ExecResult> => {
      calls.push([...args]);
      if (args.includes('--raw')) return { exitCode: 0, stdout: answer(input, true), stderr: '' };
      const items = (JSON.parse(input) as { items: unknown[] }).items.map((item) => answer(JSON.stringify(item), true));
      return { exitCode: 0, stdout: items.join('\n'), stderr: '' };
    };
    expect((await reviewAccess(questions, run)).map((found) => found.allowed)).toEqual([true, true]);
    expect(calls).toEqual([
      ['create', '--raw', '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews', '-f', '-'],
      [...REVIEW_ARGS],
    ]);
  });

  it("a refused review through the proxy is an error in kubectl's words", async () => {
    let asked = 0;
    const run = async (_args: readonly string[], input: string): Promise<ExecResult> => {
      asked += 1;
      return asked === 1
        ? { exitCode: 0, stdout: answer(input, true), stderr: '', proxied: true }
        : {
            exitCode: 1,
            stdout: '',
            stderr: 'Error from server (Forbidden): selfsubjectaccessreviews.authorization.k8s.io is forbidden\n',
            proxied: true,
          };
    };
    await expect(reviewAccess(questions, run)).rejects.toThrow(/SelfSubjectAccessReview\): .*forbidden/);
  });
});
