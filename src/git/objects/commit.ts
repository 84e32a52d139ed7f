import { decodeText, firstHeader, splitHeaders } from './headers.ts';
import { parseSignature, type Signature } from './signature.ts';

/** A parsed commit object. */
export interface CommitObject {
  readonly tree: string;
  /** Parent ids in order; the first is the branch that was merged into. */
  readonly parents: readonly string[];
  readonly author: Signature;
  readonly committer: Signature;
  readonly message: string;
  /** Whether the commit carries a `gpgsig` (or `gpgsig-sha256`) header. Not verified. */
  readonly signed: boolean;
}

/** A commit object with its id, as the git layer reads it and the converters show it. */
export interface Commit extends CommitObject {
  readonly sha: string;
}

/**
 * Parses the raw bytes of a commit object (what `cat-file --batch` prints after the header).
 *
 * @example
 *   parseCommit(Buffer.from('tree 4b82…\nauthor A <a@x> 1 +0000\ncommitter …\n\nmsg\n')).tree
 */
export function parseCommit(data: Buffer): CommitObject {
  const object = splitHeaders(data);
  const tree = firstHeader(object, 'tree');
  if (tree === undefined) throw new Error('malformed commit: no tree');
  const encoding = firstHeader(object, 'encoding');
  // Idents are read as UTF-8 even in commits that declare another encoding: git writes them as given.
  const ident = (key: string) => parseSignature(firstHeader(object, key) ?? '');
  return {
    tree,
    parents: object.headers.filter(([key]) => key === 'parent').map(([, value]) => value),
    author: ident('author'),
    committer: ident('committer'),
    message: decodeText(object.message, encoding),
    signed: object.headers.some(([key]) => key === 'gpgsig' || key === 'gpgsig-sha256'),
  };
}
