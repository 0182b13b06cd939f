import { describe, expect, it } from 'vitest';
import { Redactor, REDACTED, secretValuesOfObjects } from '../../src/report/safety/redact.js';
import { secretValuesIn } from '../../src/report/safety/secret-values.js';
import { sanitizeDeep, sanitizeText } from '../../src/report/safety/sanitize.js';

describe('sanitizeText', () => {
  it('removes colour, cursor and OSC sequences (hyperlinks, window titles) and bare control characters', () => {
    const text =
      'Back-off \u001b[31mpulling\u001b[0m image\u001b[2K\u001b]8;;http://evil\u0007link\u001b]8;;\u0007 \u001b]0;title\u001b\\done\u0007\u0000\u009b31m';
    expect(sanitizeText(text)).toBe('Back-off pulling imagelink done31m');
  });

  it('keeps newlines and tabs but turns carriage returns into newlines, so a line cannot be overwritten', () => {
    expect(sanitizeText('a\tb\r\nc\rfake line')).toBe('a\tb\nc\nfake line');
  });

  it('drops bidirectional overrides that make text read differently from what it says', () => {
    expect(sanitizeText('pod \u202eevil\u202c ok \u2066x\u2069')).toBe('pod evil ok x');
  });

  it.each([
    ['::warning ::pwned', ': :warning ::pwned'],
    ['::error file=a::x', ': :error file=a::x'],
    ['   ::stop-commands::token', '   : :stop-commands::token'],
    ['::add-mask::x', ': :add-mask::x'],
  ])('neutralises the GitHub workflow command %j at a line start', (input, output) => {
    expect(sanitizeText(input)).toBe(output);
    expect(sanitizeText(`ok\n${input}`)).toBe(`ok\n${output}`);
  });

  it('neutralises a command hidden behind an escape sequence or a carriage return', () => {
    expect(sanitizeText('\u001b[0m::error::x')).toBe(': :error::x');
    expect(sanitizeText('harmless\r::error::x')).toBe('harmless\n: :error::x');
  });

  it('leaves :: inside a line alone (image names, IPv6, messages)', () => {
    expect(sanitizeText('listen on [::1]:80; a::b')).toBe('listen on [::1]:80; a::b');
  });

  it('breaks old-style ##[command] and ##vso[ anywhere in a line, and GitLab section markers', () => {
    expect(sanitizeText('x ##[error]y ##vso[task.setvariable]z')).toBe('x # #[error]y # #vso[task.setvariable]z');
    expect(sanitizeText('\u001b[0Ksection_start:1560896352:evil\r\u001b[0Kx section_end:1:evil')).toBe(
      'section_start :1560896352:evil\nx section_end :1:evil',
    );
  });

  it('sanitises every string of plain data and keeps its shape', () => {
    const event = {
      kind: 'pod-problem',
      finding: { message: '::error::x\u001b[1m', restartCount: 3, tags: ['a\u0007'] },
      gone: undefined,
    };
    expect(sanitizeDeep(event)).toEqual({
      kind: 'pod-problem',
      finding: { message: ': :error::x', restartCount: 3, tags: ['a'] },
      gone: undefined,
    });
  });
});

describe('Redactor', () => {
  it('replaces a value, its base64 form and its JSON-escaped forms (as in a quoted last-applied annotation)', () => {
    const redactor = new Redactor();
    redactor.addValue('p"ss\nword-42');
    const base64 = Buffer.from('p"ss\nword-42').toString('base64');
    const stderr = `data: ${base64}; patch {"stringData":{"password":"p\\"ss\\nword-42"}}; annotation "{\\"password\\":\\"p\\\\\\"ss\\\\nword-42\\"}"`;
    const redacted = redactor.redact(stderr);
    expect(redacted).not.toContain(base64);
    expect(redacted).not.toContain('word-42');
    expect(redacted).toContain(REDACTED);
  });

  it('redacts a long line of a multi-line value (a PEM key) on its own', () => {
    const redactor = new Redactor();
    redactor.addValue('-----BEGIN KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END KEY-----');
    expect(redactor.redact('bad line: MIIEvQIBADANBgkqhkiG9w0BAQEFAASC')).toBe(`bad line: ${REDACTED}`);
  });

  it('redacts a very short value only as a whole quoted string, not inside every word', () => {
    const redactor = new Redactor();
    redactor.addValue('ab');
    expect(redactor.redact('about {"password":"ab"} and \\"ab\\"')).toBe(
      `about {"password":"${REDACTED}"} and \\"${REDACTED}\\"`,
    );
  });

  it('redacts values too big for one regex (a certificate bundle, binary data) and still everything else', () => {
    const redactor = new Redactor();
    // Random bytes read as UTF-8, as a gzip value decodes: hundreds of KiB in four forms.
    const big = Buffer.from(Array.from({ length: 300_000 }, (_, index) => (index * 7919 + 13) % 256)).toString('utf8');
    redactor.addValue(big);
    redactor.addValue('hunter2-password');
    redactor.addValue('ab');
    const redacted = redactor.redact(`a ${big.slice(0, 2000)} b ${big} c hunter2-password d "ab" e journal`);
    expect(redacted).not.toContain(big);
    expect(redacted).not.toContain('hunter2-password');
    expect(redacted).toContain(`c ${REDACTED} d "${REDACTED}" e journal`);
    // Only long values: nothing else is touched.
    const onlyBig = new Redactor();
    onlyBig.addValue(big);
    expect(onlyBig.redact('deployment/web: put back')).toBe('deployment/web: put back');
  });

  it('changes nothing when it knows no values', () => {
    expect(new Redactor().redact('text')).toBe('text');
  });

  it('is used by sanitizeText before anything else', () => {
    const redactor = new Redactor();
    redactor.addValue('hunter2-secret');
    expect(sanitizeText('::error::hunter2-secret', redactor)).toBe(`: :error::${REDACTED}`);
  });
});

describe('secretValuesIn', () => {
  it('finds stringData values and decoded data values of Secrets, in Lists too, and nothing of other kinds', () => {
    const yaml = `apiVersion: v1
kind: Secret
metadata: {name: a}
data:
  token: ${Buffer.from('tok-value-1').toString('base64')}
stringData:
  password: hunter2-secret
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c}
data:
  plain: not-a-secret
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Secret, metadata: {name: b}, stringData: {key: in-a-list}}
`;
    const values = secretValuesIn(yaml);
    expect(values).toEqual(expect.arrayContaining(['tok-value-1', 'hunter2-secret', 'in-a-list']));
    expect(values).not.toContain('not-a-secret');
  });

  it('parses only the documents that may be Secrets, and still finds every Secret among many other documents', () => {
    const others = Array.from(
      { length: 200 },
      (_, index) => `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c${index}}\ndata: {plain: value-${index}}\n`,
    );
    const secret = `apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {password: middle-one}\n`;
    const text = [...others.slice(0, 100), secret, ...others.slice(100)].join('---\n');
    expect(secretValuesIn(text)).toEqual(['middle-one']);
    expect(secretValuesIn(others.join('---\n'))).toEqual([]);
    // Spelled with escapes, in YAML and in JSON; after a directive; a document marker followed by a comment.
    expect(secretValuesIn('kind: "\\x53ecret"\nstringData: {k: escaped-yaml}\n')).toEqual(['escaped-yaml']);
    expect(secretValuesIn('{"kind":"\\u0053ecret","stringData":{"k":"escaped-json"}}')).toEqual(['escaped-json']);
    expect(secretValuesIn('kind: "Sec\\\n  ret"\nstringData: {k: joined-line}\n')).toEqual(['joined-line']);
    expect(secretValuesIn(`%YAML 1.1\n--- # first\n${secret}`)).toEqual(['middle-one']);
    expect(secretValuesIn(`${others[0]}--- # a comment\n${secret}`)).toEqual(['middle-one']);
  });

  it('reads JSON manifests and skips documents it cannot parse', () => {
    expect(secretValuesIn('{"kind":"Secret","stringData":{"k":"json-value"}}')).toEqual(['json-value']);
    expect(secretValuesIn('kind: [oops')).toEqual([]);
  });
});

describe('secretValuesOfObjects', () => {
  it('finds the values of Secrets among objects kubectl returned', () => {
    const objects = [
      { kind: 'Secret', data: { k: Buffer.from('from-cluster').toString('base64') } },
      { kind: 'ConfigMap', data: { k: 'plain' } },
    ];
    expect(secretValuesOfObjects(objects)).toContain('from-cluster');
    expect(secretValuesOfObjects(objects)).not.toContain('plain');
  });

  it("skips kguard's own run journal: compressed copies whose Secret values were learned when read", () => {
    const journal = {
      kind: 'Secret',
      type: 'kguard.dev/journal',
      metadata: {
        name: 'kguard-abc-journal',
        labels: { 'kguard.dev/journal': 'v1', 'app.kubernetes.io/managed-by': 'kguard' },
      },
      data: { journal: Buffer.from('gzip bytes').toString('base64') },
    };
    expect(secretValuesOfObjects([journal])).toEqual([]);
  });
});
