// One file out of a zip archive, with node's zlib: the central directory (at the end, found by its
// end record) names each entry's method, sizes and local header; the data follows that header
// (APPNOTE.TXT 4.3.6–4.3.16). Stored (0) and deflated (8) entries; no zip64, no encryption.
import { inflateRawSync } from 'node:zlib';

const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const CENTRAL_FILE_HEADER = 0x02014b50;
const LOCAL_FILE_HEADER = 0x04034b50;

export function zipEntry(archive: Buffer, name: string): Buffer {
  let end = archive.length - 22;
  while (end >= 0 && archive.readUInt32LE(end) !== END_OF_CENTRAL_DIRECTORY) end -= 1;
  if (end < 0) throw new Error('not a zip archive: no end of central directory record');
  const entries = archive.readUInt16LE(end + 10);
  let at = archive.readUInt32LE(end + 16);
  for (let index = 0; index < entries; index += 1) {
    if (archive.readUInt32LE(at) !== CENTRAL_FILE_HEADER)
      throw new Error(`zip central directory entry ${index} is damaged`);
    const method = archive.readUInt16LE(at + 10);
    const compressedSize = archive.readUInt32LE(at + 20);
    const size = archive.readUInt32LE(at + 24);
    const nameLength = archive.readUInt16LE(at + 28);
    const extraLength = archive.readUInt16LE(at + 30);
    const commentLength = archive.readUInt16LE(at + 32);
    const localHeader = archive.readUInt32LE(at + 42);
    const entryName = archive.toString('utf8', at + 46, at + 46 + nameLength);
    at += 46 + nameLength + extraLength + commentLength;
    if (entryName !== name) continue;
    if (archive.readUInt32LE(localHeader) !== LOCAL_FILE_HEADER)
      throw new Error(`zip entry ${name}: its local header is damaged`);
    const start = localHeader + 30 + archive.readUInt16LE(localHeader + 26) + archive.readUInt16LE(localHeader + 28);
    const data = archive.subarray(start, start + compressedSize);
    const content = method === 0 ? Buffer.from(data) : method === 8 ? inflateRawSync(data) : undefined;
    if (!content) throw new Error(`zip entry ${name}: compression method ${method} is not supported`);
    if (content.length !== size)
      throw new Error(`zip entry ${name}: ${content.length} bytes unpacked, ${size} expected`);
    return content;
  }
  throw new Error(`zip archive has no entry ${name}`);
}
