import { errorCode } from '../lib/thrown.ts';
import { branchRef, isSha, pushRefusal } from './ref-names.ts';

/**
 * What of a repository's files is data, the rest being behaviour. A restore brings back only data:
 * object files, refs and HEAD (repository-restore.ts), and a dump carries only those
 * (repository-dump.ts). Everything else in a repository directory (config, hooks/, info/,
 * objects/info/alternates and http-alternates, worktrees/, modules/, description, FETCH_HEAD, …)
 * either runs or redirects code, points outside the repository, or is rebuilt by git; Kiln writes
 * its own config and hooks (repository.ts), so none of it is taken from an archive.
 */

/** The kinds of restorable file; each is written only after its name and content are checked. */
export type RestorableKind = 'object' | 'packed-refs' | 'ref' | 'head';

const HEX40 = '[0-9a-f]{40}';

/** Object files by exact name: loose objects, packs and the indexes git derives from them. */
const OBJECT_FILE = new RegExp(
  [
    '^objects/[0-9a-f]{2}/[0-9a-f]{38}$',
    `^objects/pack/pack-${HEX40}\\.(?:pack|idx|rev|bitmap|mtimes)$`,
    '^objects/pack/multi-pack-index$',
    `^objects/pack/multi-pack-index-${HEX40}\\.(?:bitmap|rev)$`,
    '^objects/info/commit-graph$',
    '^objects/info/commit-graphs/commit-graph-chain$',
    `^objects/info/commit-graphs/graph-${HEX40}\\.graph$`,
  ].join('|'),
);

/** Whether a ref name (`refs/…`) may be restored: exactly the names a push may create. */
export function restorableRefName(name: string): boolean {
  return name.startsWith('refs/') && pushRefusal(name) === undefined;
}

/**
 * The kind of file `relative` (a path inside a repository directory, `/`-separated) is, or
 * undefined when a restore must not write it.
 */
export function restorableKind(relative: string): RestorableKind | undefined {
  if (relative === 'HEAD') return 'head';
  if (relative === 'packed-refs') return 'packed-refs';
  if (relative.startsWith('refs/')) return restorableRefName(relative) ? 'ref' : undefined;
  return OBJECT_FILE.test(relative) ? 'object' : undefined;
}

/**
 * Whether `text` is what HEAD or a loose ref may hold: an object id, or a symbolic ref to a
 * branch (HEAD) or to a restorable ref (other refs).
 */
export function validRefContent(text: string, isHead: boolean): boolean {
  const value = text.endsWith('\n') ? text.slice(0, -1) : text;
  if (isSha(value) && value.length === 40) return true;
  if (!value.startsWith('ref: ')) return false;
  const target = value.slice('ref: '.length);
  if (!isHead) return restorableRefName(target);
  if (!target.startsWith('refs/heads/')) return false;
  try {
    branchRef(target.slice('refs/heads/'.length));
    return restorableRefName(target);
  } catch {
    return false;
  }
}

/**
 * One line of a `packed-refs` file checked: kept (git's header, `<id> <ref>`, a peeled `^<id>`
 * after a kept ref) or the ref name it would have carried, to report.
 */
export function checkPackedRefsLine(
  line: string,
  at: { first: boolean; previousKept: boolean },
): { keep: true } | { keep: false; ref: string } {
  if (at.first && /^# pack-refs with:[a-z- ]*$/.test(line)) return { keep: true };
  if (line.startsWith('^')) {
    return at.previousKept && /^\^[0-9a-f]{40}$/.test(line)
      ? { keep: true }
      : { keep: false, ref: line };
  }
  const match = /^([0-9a-f]{40}) (.+)$/.exec(line);
  if (match && restorableRefName(match[2]!)) return { keep: true };
  return { keep: false, ref: match?.[2] ?? line };
}

/**
 * An archive that names one path twice, or a path and a directory of the same name (`refs/heads/a`
 * and `refs/heads/a/b`): the first one written stands, and the other is reported.
 */
export function clashOf(error: unknown): string {
  const code = errorCode(error);
  if (code === 'EEXIST' || code === 'EISDIR' || code === 'ENOTDIR') {
    return 'clashes with a path restored before it';
  }
  throw error;
}
