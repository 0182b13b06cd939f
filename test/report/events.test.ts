// --events: one JSON line per event, versioned, numbered and timed, described by the shipped
// schema for every event kind there is.
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/model/events.js';
import { alongside, EventStreamReporter } from '../../src/report/events.js';
import { EVENT_KINDS } from '../../src/report/verbosity.js';
import { eventSchemaErrors, schemaKinds } from './events-schema.js';

const web = { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'shop', name: 'web' };
const at = new Date('2026-05-04T10:11:12.345Z');

function stream() {
  const lines: string[] = [];
  return {
    lines,
    reporter: new EventStreamReporter(
      (line) => lines.push(line),
      () => at,
    ),
  };
}

describe('EventStreamReporter', () => {
  it('writes one whole JSON line per event with eventsVersion, seq and time, and the event as the library has it', () => {
    const { lines, reporter } = stream();
    reporter.emit({ kind: 'understood', objects: [web] });
    reporter.emit({ kind: 'finished', outcome: 'succeeded', exitCode: 0, failedWorkloads: 0, restored: false });
    expect(lines).toEqual([
      '{"eventsVersion":1,"seq":1,"time":"2026-05-04T10:11:12.345Z","kind":"understood","objects":[{"apiVersion":"apps/v1","kind":"Deployment","namespace":"shop","name":"web"}]}\n',
      '{"eventsVersion":1,"seq":2,"time":"2026-05-04T10:11:12.345Z","kind":"finished","outcome":"succeeded","exitCode":0,"failedWorkloads":0,"restored":false}\n',
    ]);
    for (const line of lines) expect(eventSchemaErrors(JSON.parse(line))).toEqual([]);
  });

  it('ends with an error line when kguard could not do its job, and writes nothing after it', () => {
    const { lines, reporter } = stream();
    reporter.error(2, 'the cluster is unreachable');
    reporter.emit({ kind: 'internal-error', message: 'late' });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toEqual({
      eventsVersion: 1,
      seq: 1,
      time: at.toISOString(),
      kind: 'error',
      exitCode: 2,
      message: 'the cluster is unreachable',
    });
    expect(eventSchemaErrors(JSON.parse(lines[0]!))).toEqual([]);
  });

  it('cuts a 1,000-object changes event into parts no line reader chokes on (each under 64 KiB, in order, schema-valid)', () => {
    const { lines, reporter } = stream();
    const objects = Array.from({ length: 1000 }, (_, index) => ({
      ref: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'shop',
        name: `settings-${String(index).padStart(4, '0')}`,
      },
      change: 'configured' as const,
      changedFields: ['data.application.properties', 'data.logging.yaml', 'metadata.annotations.checksum/config'],
    }));
    reporter.emit({ kind: 'changes', objects });
    reporter.emit({ kind: 'finished', outcome: 'succeeded', exitCode: 0, failedWorkloads: 0, restored: false });
    // One line before: 164 KiB, past Go's bufio.Scanner (64 KiB), which then stops with "token too long".
    expect(Buffer.byteLength(JSON.stringify({ kind: 'changes', objects }))).toBeGreaterThan(150 * 1024);
    const longest = Math.max(...lines.map((line) => Buffer.byteLength(line)));
    expect(longest).toBeLessThanOrEqual(60 * 1024);
    const events = lines.map(
      (line) => JSON.parse(line) as { seq: number; kind: string; part?: number; parts?: number; objects?: unknown[] },
    );
    const parts = events.filter((event) => event.kind === 'changes');
    expect(parts.length).toBeGreaterThan(2);
    expect(parts.map((event) => event.part)).toEqual(parts.map((_, index) => index + 1));
    expect(new Set(parts.map((event) => event.parts))).toEqual(new Set([parts.length]));
    expect(parts.flatMap((event) => event.objects)).toEqual(objects);
    expect(events.map((event) => event.seq)).toEqual(events.map((_, index) => index + 1));
    for (const event of events) expect(eventSchemaErrors(event)).toEqual([]);
  });

  it('shortens a single text too long for one line, and keeps small events whole (no part fields)', () => {
    const { lines, reporter } = stream();
    reporter.emit({ kind: 'diff', object: web, lines: ['x'.repeat(200 * 1024)] });
    reporter.emit({ kind: 'journal', runId: 'r', namespace: 'shop' });
    expect(Buffer.byteLength(lines[0]!)).toBeLessThanOrEqual(60 * 1024);
    expect(JSON.parse(lines[0]!).lines[0]).toMatch(/… \[shortened: the line would pass 64 KiB\]$/);
    expect(JSON.parse(lines[1]!)).not.toHaveProperty('part');
  });

  it('keeps the run going when its stream cannot be written', () => {
    const reporter = new EventStreamReporter(() => {
      throw new Error('EPIPE');
    });
    expect(() => reporter.emit({ kind: 'journal', runId: 'r', namespace: 'shop' })).not.toThrow();
  });

  it('stands beside the terminal: both see every event, the terminal first', () => {
    const seen: string[] = [];
    const terminal = {
      emit: (event: RunEvent) => seen.push(`terminal ${event.kind}`),
      close: () => seen.push('terminal closed'),
    };
    const events = {
      emit: (event: RunEvent) => seen.push(`events ${event.kind}`),
      close: () => seen.push('events closed'),
    };
    const both = alongside(terminal, events);
    both.emit({ kind: 'restoring', objects: [web] });
    both.close();
    expect(seen).toEqual(['terminal restoring', 'events restoring', 'terminal closed', 'events closed']);
  });
});

describe('schema/events.schema.json', () => {
  it("describes every kind of the RunEvent union, and the CLI's error line", () => {
    expect([...schemaKinds].sort()).toEqual([...EVENT_KINDS, 'error'].sort());
  });

  it('has exactly the fields of each event in src/model/events.ts, the optional ones not required', () => {
    const source = ts.createSourceFile(
      'events.ts',
      readFileSync(new URL('../../src/model/events.ts', import.meta.url), 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const union = source.statements.find(
      (statement): statement is ts.TypeAliasDeclaration =>
        ts.isTypeAliasDeclaration(statement) && statement.name.text === 'RunEvent',
    )!;
    const members = (union.type as ts.UnionTypeNode).types.filter(ts.isTypeLiteralNode);
    expect(members).toHaveLength(EVENT_KINDS.length);
    const schema = JSON.parse(readFileSync(new URL('../../schema/events.schema.json', import.meta.url), 'utf8')) as {
      $defs: Record<string, { properties: Record<string, unknown>; required: string[] }>;
    };
    // part and parts: the stream's own, on an event cut so that no line passes 64 KiB (event-lines.ts).
    const envelope = ['eventsVersion', 'seq', 'time', 'kind', 'part', 'parts'];
    for (const member of members) {
      const fields = member.members
        .filter(ts.isPropertySignature)
        .map((property) => ({ name: property.name.getText(source), optional: Boolean(property.questionToken) }));
      const kind = member.members
        .filter(ts.isPropertySignature)
        .find((property) => property.name.getText(source) === 'kind')!
        .type!.getText(source)
        .replace(/'/g, '');
      const described = schema.$defs[`Event_${kind}`];
      expect(described, kind).toBeDefined();
      const own = fields.filter((field) => field.name !== 'kind');
      expect(
        Object.keys(described!.properties)
          .filter((name) => !envelope.includes(name))
          .sort(),
        kind,
      ).toEqual(own.map((field) => field.name).sort());
      expect(described!.required.filter((name) => !envelope.includes(name)).sort(), kind).toEqual(
        own
          .filter((field) => !field.optional)
          .map((field) => field.name)
          .sort(),
      );
    }
  });

  it("names every phase an event can carry: its Phase is src/model/events.ts's Watching, the tracking's one type", () => {
    const source = readFileSync(new URL('../../src/model/events.ts', import.meta.url), 'utf8');
    const union = source.match(/^export type Watching = (.+);$/m)?.[1];
    expect(union).toBeDefined();
    const phases = [...union!.matchAll(/'([^']+)'/g)].map((match) => match[1]);
    const schema = JSON.parse(readFileSync(new URL('../../schema/events.schema.json', import.meta.url), 'utf8')) as {
      $defs: { Phase: { enum: string[] } };
    };
    expect(schema.$defs.Phase.enum.sort()).toEqual(phases.sort());
    expect(phases).toContain('verify');
  });

  it('refuses an unknown kind, a missing field and a field the event does not have', () => {
    const line = { eventsVersion: 1, seq: 1, time: at.toISOString(), kind: 'journal', runId: 'r', namespace: 'shop' };
    expect(eventSchemaErrors(line)).toEqual([]);
    expect(eventSchemaErrors({ ...line, kind: 'journaled' })).not.toEqual([]);
    const { runId: _runId, ...withoutRunId } = line;
    expect(eventSchemaErrors(withoutRunId).join('\n')).toMatch(/runId/);
    expect(eventSchemaErrors({ ...line, token: 'x' })).not.toEqual([]);
    expect(eventSchemaErrors({ ...line, eventsVersion: 2 })).not.toEqual([]);
  });

  it('accepts a failure with its diagnosis, findings and logs, and a kubectl process', () => {
    const rule = {
      category: 'image-pull',
      family: 'image-pull',
      policy: { when: 'now' },
      cannot: 'pull',
      nextStep: 'check IMAGE',
    };
    const finding = {
      pod: 'web-1',
      namespace: 'shop',
      container: 'web',
      initContainer: false,
      image: 'x:1',
      reason: 'ErrImagePull',
      message: 'm',
      restartCount: 0,
      ran: false,
      running: false,
      family: 'image-pull',
      rule,
      policy: rule.policy,
    };
    const events = [
      { kind: 'pod-problem', workload: web, finding, phase: 'rollout' },
      {
        kind: 'failed',
        workload: web,
        elapsedMs: 812.5,
        diagnosis: {
          summary: 's',
          evidence: ['e'],
          nextStep: 'n',
          pod: 'web-1',
          logs: [{ pod: 'web-1', container: 'web', previous: true, lines: ['boom'], shown: 1 }],
        },
      },
      {
        kind: 'kubectl',
        args: ['get', 'pods', '--token=[redacted]'],
        durationMs: 120,
        exitCode: 0,
        timedOut: false,
        stream: false,
      },
    ];
    for (const [index, event] of events.entries())
      expect(eventSchemaErrors({ eventsVersion: 1, seq: index + 1, time: at.toISOString(), ...event })).toEqual([]);
  });
});
