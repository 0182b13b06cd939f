// Whether a run lives and when its journal may go, by the API server's clock alone (#45):
// liveness.ts (journalExpired too) and server-clock.ts on Leases and journal Secrets shaped as the API serves
// them (a Lease's managedFields entry carries the time the API server stamped on its last write).
import { describe, expect, it } from 'vitest';
import type { Journal } from '../../src/journal/journal.js';
import { journalExpired, livenessOf, runIsOver, serverRenewedAt } from '../../src/journal/liveness.js';
import { newestServerTime, serverNow } from '../../src/journal/server-clock.js';
import type { KubeObject } from '../../src/objects/model.js';

const elsewhere = () => 'elsewhere' as const;

/** A run's Lease as `kubectl get --raw` serves it: renewTime written by its holder's clock, the field owner's time by the API server's. */
function lease(renewTime: string, stampedAt: string): KubeObject {
  return {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: 'kguard-mx1-abc',
      namespace: 'shop',
      uid: 'b1f2',
      resourceVersion: '4711',
      creationTimestamp: '2026-12-07T10:00:00Z',
      annotations: { 'kguard.dev/holder-host': 'ci-runner-7', 'kguard.dev/holder-pid': '4242' },
      managedFields: [
        {
          manager: 'kguard-restore',
          operation: 'Update',
          apiVersion: 'coordination.k8s.io/v1',
          time: stampedAt,
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:spec': { 'f:renewTime': {}, 'f:holderIdentity': {} } },
        },
      ],
    },
    spec: { holderIdentity: 'kguard-mx1-abc', leaseDurationSeconds: 120, renewTime: renewTime },
  } as KubeObject;
}

const server = Date.parse('2026-12-07T10:05:00Z');
const journal = { runId: 'kguard-mx1-abc', state: 'applied' } as Journal;

describe('livenessOf, for a run on another machine', () => {
  it('times the Lease by the API server: a holder 25 h behind that renewed 30 s ago lives', () => {
    const behind = lease('2026-12-06T09:04:30.000000Z', '2026-12-07T10:04:30Z');
    const life = livenessOf(journal, [behind], Date.now(), elsewhere, server);
    expect(life).toEqual({
      state: 'live',
      why: "it renewed its Lease 30s ago on ci-runner-7 (by the API server's clock)",
    });
  });

  it("a holder 48 h ahead whose Lease has not moved for 3 minutes by the API server's clock is dead", () => {
    const ahead = lease('2026-12-09T10:02:00.000000Z', '2026-12-07T10:02:00Z');
    const life = livenessOf(journal, [ahead], 1_000_000, elsewhere, server);
    expect(life.state).toBe('dead');
    expect(life.why).toBe("its Lease has not been renewed for 3m on ci-runner-7 (by the API server's clock)");
    // Died by its last renewal and a third of the duration, told on this machine's clock.
    expect(life.state === 'dead' && life.diedBy).toBe(1_000_000 - 180_000 + 40_000);
  });

  it("without the API server's clock nothing tells: unknown, never this machine's clock against the renewTime", () => {
    const life = livenessOf(journal, [lease('2026-12-07T10:04:59.000000Z', '2026-12-07T10:04:59Z')], server, elsewhere);
    expect(life.state).toBe('unknown');
  });

  it('reads the last renewal from the managedFields time, else the creation, never the renewTime', () => {
    expect(serverRenewedAt(lease('2030-01-01T00:00:00.000000Z', '2026-12-07T10:04:00Z'))).toBe(
      Date.parse('2026-12-07T10:04:00Z'),
    );
    const bare = lease('2030-01-01T00:00:00.000000Z', '');
    bare.metadata.managedFields = [];
    expect(serverRenewedAt(bare)).toBe(Date.parse('2026-12-07T10:00:00Z'));
  });
});

describe('journalExpired', () => {
  const day = 24 * 60 * 60 * 1000;
  const createdAt = server - day - 60_000;
  const dead = { state: 'dead', why: 'its process 4242 on this machine has ended', diedBy: 0 } as const;
  const live = { state: 'live', why: 'its process 4242 is running on this machine' } as const;

  it('a day old by the server and its run over: expired', () => {
    expect(journalExpired({ journal, createdAt, leases: [{}], liveness: dead }, server)).toBe(true);
    expect(journalExpired({ journal, createdAt, leases: [], liveness: { state: 'unknown', why: '' } }, server)).toBe(
      true,
    );
  });

  it('a live run keeps its journal, however old; so does a run whose Lease says nothing yet', () => {
    expect(journalExpired({ journal, createdAt, leases: [{}], liveness: live }, server)).toBe(false);
    expect(runIsOver({ leases: [{}], liveness: { state: 'unknown', why: '' } })).toBe(false);
  });

  it("younger than a day by the server's clock: kept, whatever its writer's expires-at says", () => {
    const young = { ...journal, expiresAt: '2026-12-01T00:00:00.000Z' };
    expect(journalExpired({ journal: young, createdAt: server - 60_000, leases: [], liveness: dead }, server)).toBe(
      false,
    );
  });

  it("without the API server's clock or the Secret's creation time: never expired", () => {
    expect(journalExpired({ journal, createdAt, leases: [], liveness: dead }, undefined)).toBe(false);
    expect(journalExpired({ journal, leases: [], liveness: dead }, server)).toBe(false);
  });
});

describe('serverNow', () => {
  it('reads the creationTimestamp of a server dry run of a Lease create, and asks nothing to be stored', async () => {
    const asked: string[] = [];
    const kubectl = {
      create: async (object: KubeObject, path: string) => {
        asked.push(path);
        return {
          ok: true as const,
          object: {
            ...object,
            metadata: { ...object.metadata, name: 'kguard-clock-x7k2p', creationTimestamp: '2026-12-07T10:05:00Z' },
          },
        };
      },
    };
    expect(await serverNow(kubectl, 'shop', 10_000)).toBe(server);
    expect(asked).toEqual(['/apis/coordination.k8s.io/v1/namespaces/shop/leases?dryRun=All']);
  });

  it('is undefined when the dry run is refused (no right to create leases there)', async () => {
    const refused = {
      create: async () => ({
        ok: false as const,
        conflict: false,
        notFound: false,
        message: 'leases.coordination.k8s.io is forbidden',
        stderr: 'Error from server (Forbidden)',
      }),
    };
    expect(await serverNow(refused, 'shop', 10_000)).toBeUndefined();
  });

  it('falls back to the newest time the server stamped on what it listed: a lower bound, the safe side', () => {
    expect(newestServerTime([lease('', '2026-12-07T10:04:00Z'), lease('', '2026-12-07T10:03:00Z')])).toBe(
      Date.parse('2026-12-07T10:04:00Z'),
    );
  });
});
