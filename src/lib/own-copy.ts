/**
 * The bytes in memory of their own. Node hands out small buffers as views on a shared slab
 * (`Buffer.poolSize`: 64 KiB on Node 24), and a view kept alive keeps its whole slab alive: a
 * memory that keeps many small answers must copy them, or it holds far more than it counts.
 */
export function ownCopy(bytes: Buffer): Buffer {
  if (bytes.byteOffset === 0 && bytes.buffer.byteLength === bytes.length) return bytes;
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}
