// The zip reader behind `npm run kubectl-versions`, on archives written here byte by byte
// (APPNOTE.TXT layout): stored and deflated entries, a missing name, a damaged archive.
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { zipEntry } from './zip.js';

/** A zip record of `size` bytes: its signature, then each field at its offset, 2 or 4 bytes little-endian, the rest 0. */
function record(size: number, signature: number, fields: Array<[offset: number, width: 2 | 4, value: number]>): Buffer {
  const bytes = Buffer.alloc(size);
  bytes.writeUInt32LE(signature, 0);
  for (const [offset, width, value] of fields)
    if (width === 2) bytes.writeUInt16LE(value, offset);
    else bytes.writeUInt32LE(value, offset);
  return bytes;
}

/** A zip archive of the given files: each deflated (method 8) or stored (method 0). */
function zipOf(files: Array<{ name: string; content: Buffer; deflate: boolean }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, content, deflate } of files) {
    const data = deflate ? deflateRawSync(content) : content;
    const nameBytes = Buffer.from(name);
    const method = deflate ? 8 : 0;
    // The local file header, then the central directory's header of the same entry.
    const local = record(30, 0x04034b50, [
      [8, 2, method],
      [18, 4, data.length],
      [22, 4, content.length],
      [26, 2, nameBytes.length],
    ]);
    const central = record(46, 0x02014b50, [
      [10, 2, method],
      [20, 4, data.length],
      [24, 4, content.length],
      [28, 2, nameBytes.length],
      [42, 4, offset],
    ]);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = record(22, 0x06054b50, [
    [8, 2, files.length],
    [10, 2, files.length],
    [12, 4, directory.length],
    [16, 4, offset],
  ]);
  return Buffer.concat([...locals, directory, end]);
}

describe('zipEntry', () => {
  const binary = Buffer.from(Array.from({ length: 5000 }, (_, index) => (index * 31) % 251));
  const archive = zipOf([
    { name: 'helm/', content: Buffer.alloc(0), deflate: false },
    { name: 'helm/helm', content: Buffer.from('not this one'), deflate: true },
    { name: 'kubectl/kubectl', content: binary, deflate: true },
    { name: 'README', content: Buffer.from('stored as it is'), deflate: false },
  ]);

  it('finds a deflated entry and a stored one by name', () => {
    expect(zipEntry(archive, 'kubectl/kubectl').equals(binary)).toBe(true);
    expect(zipEntry(archive, 'README').toString()).toBe('stored as it is');
  });

  it('says what is wrong: no such entry, not a zip', () => {
    expect(() => zipEntry(archive, 'kubectl')).toThrow('zip archive has no entry kubectl');
    expect(() => zipEntry(Buffer.from('plain text, long enough to look for an end record'), 'x')).toThrow(
      'not a zip archive',
    );
  });
});
