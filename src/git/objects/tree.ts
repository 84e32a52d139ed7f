/** What a tree entry points at: a file or symlink (blob), a directory (tree), a submodule (commit). */
export type TreeEntryType = 'blob' | 'tree' | 'commit';

export interface TreeEntry {
  /** Octal mode as git stores it, normalised to six digits: `100644`, `100755`, `120000`, `040000`, `160000`. */
  readonly mode: string;
  readonly type: TreeEntryType;
  readonly sha: string;
  readonly name: string;
}

function entryType(mode: string): TreeEntryType {
  if (mode === '040000') return 'tree';
  if (mode === '160000') return 'commit';
  return 'blob';
}

/**
 * Parses the raw bytes of a tree object: repeated `<octal mode> SP <name> NUL <raw id>`, where the
 * raw id is 20 bytes (SHA-1) or 32 (SHA-256) and may contain any byte, including NUL and space.
 * Names are decoded as UTF-8.
 */
export function parseTree(data: Buffer, hashBytes = 20): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    const nul = space === -1 ? -1 : data.indexOf(0, space + 1);
    if (space === -1 || nul === -1 || nul + 1 + hashBytes > data.length) {
      throw new Error(`malformed tree entry at byte ${offset}`);
    }
    const mode = data.toString('latin1', offset, space).padStart(6, '0');
    entries.push({
      mode,
      type: entryType(mode),
      name: data.toString('utf8', space + 1, nul),
      sha: data.toString('hex', nul + 1, nul + 1 + hashBytes),
    });
    offset = nul + 1 + hashBytes;
  }
  return entries;
}
