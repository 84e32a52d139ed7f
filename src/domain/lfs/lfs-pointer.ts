/** Pointer files are small; a blob larger than this is never read as one. */
export const MAX_POINTER_BYTES = 1024;

const VERSION = 'version https://git-lfs.github.com/spec/v1';

/**
 * The object a Git LFS pointer file names, or undefined when `content` is not one: the spec's
 * version line first, then `key value` lines, among them `oid sha256:<64 hex>` and
 * `size <digits>`. Anything else (a file that merely looks like one) stays a plain file.
 */
export function parsePointer(content: Uint8Array): { oid: string; size: number } | undefined {
  if (content.byteLength > MAX_POINTER_BYTES) return undefined;
  const text = Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('utf8');
  const lines = text.split('\n');
  if (lines[0] !== VERSION || lines.at(-1) !== '') return undefined;
  let oid: string | undefined;
  let size: number | undefined;
  for (const line of lines.slice(1, -1)) {
    const match = /^([a-z0-9.-]+) (.+)$/.exec(line);
    if (!match) return undefined;
    if (match[1] === 'oid') {
      const value = /^sha256:([0-9a-f]{64})$/.exec(match[2] ?? '');
      if (!value) return undefined;
      oid = value[1];
    } else if (match[1] === 'size') {
      if (!/^(0|[1-9][0-9]{0,15})$/.test(match[2] ?? '')) return undefined;
      size = Number(match[2]);
    }
  }
  if (oid === undefined || size === undefined || !Number.isSafeInteger(size)) return undefined;
  return { oid, size };
}
