// The raw calls the API channel sends through kubectl proxy, and the answers read back as kubectl
// prints them: the write results and transient retries above must not tell the difference.
import { describe, expect, it } from 'vitest';
import { writeFailure } from '../../src/kubectl/output/parse.js';
import { isWatch, kubectlStyleAnswer, rawRequestOf, warningTexts } from '../../src/kubectl/channel/raw-request.js';
import { isTransientFailure } from '../../src/kubectl/transient.js';

const pinned = ['--context=prod', '--cluster=prod', '--user=ci'];

describe('rawRequestOf', () => {
  it('reads the verb, path, body and connection of each raw call kguard makes', () => {
    expect(
      rawRequestOf([
        ...pinned,
        'get',
        '--raw',
        '/api/v1/namespaces/shop/pods?labelSelector=app%3Dweb',
        '--request-timeout=30s',
      ]),
    ).toEqual({
      connection: pinned,
      method: 'GET',
      path: '/api/v1/namespaces/shop/pods?labelSelector=app%3Dweb',
      body: false,
    });
    expect(
      rawRequestOf([
        ...pinned,
        'replace',
        '--raw',
        '/apis/apps/v1/namespaces/shop/deployments/web?fieldManager=kguard-restore',
        '-f',
        '-',
        '--request-timeout=30s',
      ])?.method,
    ).toBe('PUT');
    expect(rawRequestOf([...pinned, 'create', '--raw', '/api/v1/namespaces/shop/secrets', '-f', '-'])).toMatchObject({
      method: 'POST',
      body: true,
    });
    expect(
      rawRequestOf(['delete', '--raw', '/apis/coordination.k8s.io/v1/namespaces/shop/leases/run-1', '-f', '-']),
    ).toMatchObject({ method: 'DELETE', connection: [] });
  });

  it('leaves every other kubectl command to a process of its own', () => {
    expect(rawRequestOf([...pinned, 'get', 'deployments.apps', '-n', 'shop', '-o', 'json'])).toBeUndefined();
    expect(rawRequestOf([...pinned, 'apply', '-f', 'app.yaml'])).toBeUndefined();
    // A body where kguard never sends one, none where it must, or flags it does not know.
    expect(rawRequestOf(['get', '--raw', '/api/v1', '-f', '-'])).toBeUndefined();
    expect(rawRequestOf(['replace', '--raw', '/api/v1/namespaces/a/configmaps/b'])).toBeUndefined();
    expect(rawRequestOf(['get', '--raw', '/api/v1', '-v=9'])).toBeUndefined();
    expect(rawRequestOf(['get', '--raw', 'api/v1'])).toBeUndefined();
    expect(rawRequestOf(['patch', '--raw', '/api/v1'])).toBeUndefined();
  });

  it('tells a watch from a read', () => {
    expect(isWatch('/api/v1/namespaces/shop/pods?labelSelector=a%3Db&watch=1&resourceVersion=5')).toBe(true);
    expect(isWatch('/api/v1/watch/namespaces/shop/pods')).toBe(true);
    expect(isWatch('/api/v1/namespaces/shop/pods?labelSelector=watch%3D1')).toBe(false);
    expect(isWatch('/api/v1/namespaces/watch/pods')).toBe(false);
    expect(isWatch('/apis/apps/v1/watch/namespaces/shop/deployments')).toBe(true);
    expect(isWatch('/apis/apps/v1/namespaces/watch/deployments')).toBe(false);
  });
});

describe('kubectlStyleAnswer', () => {
  it('prints a success as kubectl --raw does: the body on stdout', () => {
    expect(kubectlStyleAnswer(200, '{"kind":"Pod"}')).toEqual({ exitCode: 0, stdout: '{"kind":"Pod"}', stderr: '' });
    expect(kubectlStyleAnswer(201, '{}', ['the field is deprecated'])).toEqual({
      exitCode: 0,
      stdout: '{}',
      stderr: 'Warning: the field is deprecated\n',
    });
  });

  it('prints an API status as "Error from server (Reason): message", which the write result reads as kubectl\'s', () => {
    // A real 409 body from the API server (apimachinery NewConflict).
    const conflict = kubectlStyleAnswer(
      409,
      '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on deployments.apps \\"web\\": the object has been modified; please apply your changes to the latest version and try again","reason":"Conflict","details":{"name":"web","group":"apps","kind":"deployments"},"code":409}',
    );
    expect(conflict.exitCode).toBe(1);
    expect(conflict.stderr).toBe(
      'Error from server (Conflict): Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again\n',
    );
    expect(writeFailure(conflict, 30_000)).toMatchObject({ ok: false, conflict: true, notFound: false });
    const gone = kubectlStyleAnswer(
      404,
      '{"kind":"Status","apiVersion":"v1","status":"Failure","message":"configmaps \\"app\\" not found","reason":"NotFound","code":404}',
    );
    expect(writeFailure(gone, 30_000)).toMatchObject({ ok: false, notFound: true, conflict: false });
  });

  it('words an answer without a Status as client-go does, so busy servers are retried and refusals are not', () => {
    const unavailable = kubectlStyleAnswer(503, 'service unavailable');
    expect(unavailable.stderr).toBe(
      'Error from server (ServiceUnavailable): the server is currently unable to handle the request\n',
    );
    expect(isTransientFailure(unavailable)).toBe(true);
    // kubectl proxy's own answer when the API server cannot be reached (kubectl 1.32, a closed port).
    const unreachable = kubectlStyleAnswer(500, 'dial tcp 127.0.0.1:1: connect: connection refused');
    expect(unreachable.stderr).toBe(
      'Error from server (InternalError): an error on the server ("dial tcp 127.0.0.1:1: connect: connection refused") has prevented the request from succeeding\n',
    );
    expect(isTransientFailure(unreachable)).toBe(true);
    // A gateway's 502 in front of the API server, worded as client-go words any other 5xx.
    expect(isTransientFailure(kubectlStyleAnswer(502, 'Bad Gateway'))).toBe(true);
    expect(isTransientFailure(kubectlStyleAnswer(429, ''))).toBe(true);
    expect(
      isTransientFailure(
        kubectlStyleAnswer(
          403,
          '{"kind":"Status","message":"secrets is forbidden: User \\"ci\\" cannot create resource \\"secrets\\"","reason":"Forbidden","code":403}',
        ),
      ),
    ).toBe(false);
    expect(kubectlStyleAnswer(404, '404 page not found').stderr).toBe(
      'Error from server (NotFound): the server could not find the requested resource\n',
    );
  });
});

describe('warningTexts', () => {
  it('reads the text of each warning header the API server sends (code, agent, quoted text)', () => {
    expect(
      warningTexts([
        '299 - "spec.template.spec.containers[0].env[0]: hides a previous definition"',
        '299 - "a \\"quoted\\" word"',
      ]),
    ).toEqual(['spec.template.spec.containers[0].env[0]: hides a previous definition', 'a "quoted" word']);
    expect(warningTexts([])).toEqual([]);
  });
});
