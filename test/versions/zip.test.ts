// The zip reader behind `npm run kubectl-versions`, on archives written here byte by byte
// (APPNOTE.TXT layout): stored and deflated entries, a missing name, a damaged archive.
import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { zipEntry } from './zip.js';

/** A zip archive of the given files: each deflated (method 8) or stored (method 0). */
function zipOf(files: Array<{ name: string; content: Buffer; deflate: boolean }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, content, deflate } of files) {
    const data = deflate ? deflateRawSync(content) : content;
    const nameBytes = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(deflate ? 8 : 0, 8);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(content.length, 22);
    local.writeUInt16LE(nameBytes.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(deflate ? 8 : 0, 10);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(content.length, 24);
    central.writeUInt16LE(nameBytes.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += local.length + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(files.length, 8);
  end.writeUInt16LE(files.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
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
