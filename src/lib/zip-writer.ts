import { crc32 } from 'node:zlib';

/** One file of a zip being written: its name inside the archive and a stream of its bytes. */
export type ZipEntry = { readonly name: string; readonly bytes: () => AsyncIterable<Uint8Array> };

/** Zip without its 64-bit extension stops here: offsets and sizes are 32-bit fields. */
const MAX_ZIP_BYTES = 0xffff_ffff;
/** Bit 3: sizes and CRC follow the data; bit 11: the name is UTF-8. */
const FLAGS = 0x0808;
/** 1980-01-01 00:00 in DOS time: entries carry no meaningful time. */
const DOS_DATE = 0x21;

type Written = { name: Buffer; crc: number; size: number; offset: number };

/**
 * Writes a zip archive of `entries` as it reads them: each file is stored (not deflated) with
 * its CRC and size in a data descriptor after its bytes, so no file is ever held whole in memory
 * and the first bytes leave before the last file is opened. Archives past 4 GiB are refused
 * (no Zip64), by an error thrown from the stream.
 */
export async function* writeZip(entries: Iterable<ZipEntry>): AsyncGenerator<Buffer> {
  const written: Written[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const header = localHeader(name);
    yield header;
    let crc = 0;
    let size = 0;
    for await (const chunk of entry.bytes()) {
      crc = crc32(chunk, crc);
      size += chunk.byteLength;
      if (offset + size > MAX_ZIP_BYTES) throw new Error('zip archive larger than 4 GiB');
      yield Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
    yield descriptor(crc, size);
    written.push({ name, crc, size, offset });
    offset += header.length + size + 16;
  }
  let directorySize = 0;
  for (const file of written) {
    const record = centralRecord(file);
    directorySize += record.length;
    yield record;
  }
  if (offset + directorySize > MAX_ZIP_BYTES) throw new Error('zip archive larger than 4 GiB');
  yield endRecord(written.length, directorySize, offset);
}

function localHeader(name: Buffer): Buffer {
  const head = Buffer.alloc(30);
  head.writeUInt32LE(0x04034b50, 0);
  head.writeUInt16LE(20, 4);
  head.writeUInt16LE(FLAGS, 6);
  head.writeUInt16LE(0, 8);
  head.writeUInt16LE(0, 10);
  head.writeUInt16LE(DOS_DATE, 12);
  head.writeUInt16LE(name.length, 26);
  return Buffer.concat([head, name]);
}

function descriptor(crc: number, size: number): Buffer {
  const record = Buffer.alloc(16);
  record.writeUInt32LE(0x08074b50, 0);
  record.writeUInt32LE(crc >>> 0, 4);
  record.writeUInt32LE(size, 8);
  record.writeUInt32LE(size, 12);
  return record;
}

function centralRecord(file: Written): Buffer {
  const record = Buffer.alloc(46);
  record.writeUInt32LE(0x02014b50, 0);
  record.writeUInt16LE(20, 4);
  record.writeUInt16LE(20, 6);
  record.writeUInt16LE(FLAGS, 8);
  record.writeUInt16LE(0, 10);
  record.writeUInt16LE(0, 12);
  record.writeUInt16LE(DOS_DATE, 14);
  record.writeUInt32LE(file.crc >>> 0, 16);
  record.writeUInt32LE(file.size, 20);
  record.writeUInt32LE(file.size, 24);
  record.writeUInt16LE(file.name.length, 28);
  // Regular file, rw-r--r--, in the upper half of the external attributes (Unix).
  record.writeUInt32LE((0o100644 << 16) >>> 0, 38);
  record.writeUInt32LE(file.offset, 42);
  return Buffer.concat([record, file.name]);
}

function endRecord(count: number, directorySize: number, directoryOffset: number): Buffer {
  const record = Buffer.alloc(22);
  record.writeUInt32LE(0x06054b50, 0);
  record.writeUInt16LE(count, 8);
  record.writeUInt16LE(count, 10);
  record.writeUInt32LE(directorySize, 12);
  record.writeUInt32LE(directoryOffset, 16);
  return record;
}
