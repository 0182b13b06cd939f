import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../types.js';
import { humanDuration } from './duration.js';
import { negotiateTable, tableOf } from './index.js';
import { podCells } from './podStatus.js';

const now = new Date('2026-12-02T12:00:00Z');

function pod(status: object, extra: { initContainers?: object[]; deletionTimestamp?: string } = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web-1', creationTimestamp: '2026-12-02T11:55:00Z', deletionTimestamp: extra.deletionTimestamp },
    spec: { containers: [{ name: 'web', image: 'nginx' }], initContainers: extra.initContainers },
    status,
  };
}

describe('humanDuration', () => {
  it('prints ages the way kubectl get does', () => {
    expect(humanDuration(5_000)).toBe('5s');
    expect(humanDuration(119_000)).toBe('119s');
    expect(humanDuration(150_000)).toBe('2m30s');
    expect(humanDuration(600_000)).toBe('10m');
    expect(humanDuration(3 * 3600_000 + 5 * 60_000)).toBe('3h5m');
    expect(humanDuration(30 * 3600_000)).toBe('30h');
    expect(humanDuration(3 * 86400_000 + 2 * 3600_000)).toBe('3d2h');
    expect(humanDuration(-5_000)).toBe('<invalid>');
  });
});

describe('podCells', () => {
  it('shows a waiting reason and restarts with the time of the last one', () => {
    const cells = podCells(
      pod({
        phase: 'Running',
        containerStatuses: [
          {
            name: 'web',
            ready: false,
            restartCount: 3,
            state: { waiting: { reason: 'CrashLoopBackOff' } },
            lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: '2026-12-02T11:59:50Z' } },
          },
        ],
      }),
      now,
    );
    expect(cells).toEqual({ ready: '0/1', status: 'CrashLoopBackOff', restarts: '3 (10s ago)' });
  });

  it('counts ready running containers and keeps the phase', () => {
    const cells = podCells(
      pod({
        phase: 'Running',
        containerStatuses: [{ name: 'web', ready: true, restartCount: 0, state: { running: {} } }],
      }),
      now,
    );
    expect(cells).toEqual({ ready: '1/1', status: 'Running', restarts: '0' });
  });

  it('shows init container progress and failures', () => {
    const initContainers = [{ name: 'migrate', image: 'x' }];
    expect(
      podCells(
        pod(
          { phase: 'Pending', initContainerStatuses: [{ name: 'migrate', state: { running: {} } }] },
          { initContainers },
        ),
        now,
      ).status,
    ).toBe('Init:0/1');
    expect(
      podCells(
        pod(
          {
            phase: 'Pending',
            initContainerStatuses: [{ name: 'migrate', state: { terminated: { exitCode: 2, reason: 'Error' } } }],
          },
          { initContainers },
        ),
        now,
      ).status,
    ).toBe('Init:Error');
    expect(
      podCells(
        pod(
          {
            phase: 'Pending',
            initContainerStatuses: [{ name: 'migrate', state: { waiting: { reason: 'CrashLoopBackOff' } } }],
          },
          { initContainers },
        ),
        now,
      ).status,
    ).toBe('Init:CrashLoopBackOff');
  });

  it('shows Terminating for a pod being deleted and an exit code without a reason', () => {
    expect(podCells(pod({ phase: 'Running' }, { deletionTimestamp: '2026-12-02T11:59:00Z' }), now).status).toBe(
      'Terminating',
    );
    expect(
      podCells(
        pod({ phase: 'Running', containerStatuses: [{ name: 'web', state: { terminated: { exitCode: 137 } } }] }),
        now,
      ).status,
    ).toBe('ExitCode:137');
  });
});

describe('tableOf', () => {
  it('builds a meta.k8s.io Table with all cells and the object metadata by default', () => {
    const table = tableOf('Pod', [pod({ phase: 'Pending' })], {
      version: 'v1',
      now,
      includeObject: null,
      resourceVersion: '7',
    }) as {
      metadata: object;
      columnDefinitions: { name: string; priority: number }[];
      rows: { cells: unknown[]; object: { kind: string } }[];
    };
    expect(table.metadata).toEqual({ resourceVersion: '7' });
    expect(table.columnDefinitions.filter((column) => column.priority === 0).map((column) => column.name)).toEqual([
      'Name',
      'Ready',
      'Status',
      'Restarts',
      'Age',
    ]);
    expect(table.rows[0]!.cells.slice(0, 5)).toEqual(['web-1', '0/1', 'Pending', '0', '5m']);
    expect(table.rows[0]!.object.kind).toBe('PartialObjectMetadata');
  });

  it('is negotiated only when kubectl asks for a Table', () => {
    expect(
      negotiateTable(
        'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json',
      ),
    ).toBe('v1');
    expect(negotiateTable('application/json')).toBeUndefined();
  });
});
