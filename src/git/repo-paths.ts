import path from 'node:path';
import { Invalid } from '../domain/errors.ts';
import { type GitCaches, gitCaches } from './git-caches.ts';

/** A repository as the rest of Kiln names it. Case is kept for display; paths are lowercased. */
export interface RepoRef {
  readonly owner: string;
  readonly name: string;
}

/**
 * A repository reference that passed validation, with its directory. Only `RepoPaths` makes
 * these, so a path inside src/git always comes from a checked owner and name.
 */
export interface RepoHandle {
  readonly ref: RepoRef;
  /** Absolute path of the bare repository, `<root>/<owner>/<name>.git`, lowercased. */
  readonly path: string;
  /** `owner/name`, lowercased: the key for per-repository state such as cat-file processes. */
  readonly key: string;
  /** What is remembered of repositories' files, shared by every handle of one `RepoPaths`. */
  readonly caches: GitCaches;
}

export const MAX_REPO_SEGMENT_LENGTH = 100;
const ALLOWED = /^[A-Za-z0-9._-]+$/;

/**
 * Checks an owner or repository name and returns it lowercased. Only `[A-Za-z0-9._-]`, at most
 * 100 characters, no leading `-` or `.`, and no `..` anywhere; everything else (slashes,
 * backslashes, NUL, control characters, percent-escapes) fails the allow-list.
 */
export function checkRepoSegment(value: string, what: 'owner' | 'name'): string {
  if (typeof value !== 'string' || value.length === 0) throw new Invalid(`${what} is empty`);
  if (value.length > MAX_REPO_SEGMENT_LENGTH) throw new Invalid(`${what} is too long`);
  if (!ALLOWED.test(value))
    throw new Invalid(`${what} may contain only letters, digits, ".", "_" and "-"`);
  if (value.startsWith('-') || value.startsWith('.')) {
    throw new Invalid(`${what} must not start with "-" or "."`);
  }
  if (value.includes('..')) throw new Invalid(`${what} must not contain ".."`);
  return value.toLowerCase();
}

/**
 * Maps repository references to directories under one root. The only place in Kiln that knows
 * where a repository lives on disk.
 *
 * @example
 *   const paths = new RepoPaths('/srv/kiln/repos');
 *   paths.resolve({ owner: 'Alice', name: 'Tools' }).path; // '/srv/kiln/repos/alice/tools.git'
 */
export class RepoPaths {
  readonly root: string;
  readonly caches: GitCaches;
  /** Handles already made (`GitCaches.handles`). */
  readonly #made: GitCaches['handles'];

  /** `caches` come from the composition root; without them, this instance has its own. */
  constructor(root: string, caches: GitCaches = gitCaches()) {
    this.root = path.resolve(root);
    this.caches = caches;
    this.#made = caches.handles;
  }

  resolve(ref: RepoRef): RepoHandle {
    const key = `${ref.owner}/${ref.name}`;
    const made = this.#made.get(key);
    // Compared in full, so no two different pairs can ever share an entry.
    if (made && made.ref.owner === ref.owner && made.ref.name === ref.name) return made;
    const handle = this.#make(ref);
    this.#made.set(key, handle);
    return handle;
  }

  /**
   * A handle made anew and not remembered, for a walk over every repository on disk (the loan
   * scan at start-up): remembering 10,000 handles nobody asked for would keep megabytes for the
   * life of the process and push out the ones requests use.
   */
  unremembered(ref: RepoRef): RepoHandle {
    return this.#make(ref);
  }

  /** How many handles are remembered now (at most 10,000). */
  get remembered(): number {
    return this.#made.size;
  }

  #make(ref: RepoRef): RepoHandle {
    const owner = checkRepoSegment(ref.owner, 'owner');
    const name = checkRepoSegment(ref.name, 'name');
    const resolved = path.resolve(this.root, owner, `${name}.git`);
    const relative = path.relative(this.root, resolved);
    if (
      relative.startsWith('..') ||
      path.isAbsolute(relative) ||
      relative.split(path.sep).length !== 2
    ) {
      throw new Invalid('repository path escapes the repository root');
    }
    return Object.freeze({
      ref: Object.freeze({ owner: ref.owner, name: ref.name }),
      path: resolved,
      key: `${owner}/${name}`,
      caches: this.caches,
    });
  }

  /**
   * Where half-made repositories are assembled before being renamed into place. It sits under
   * the root (same filesystem, so rename is atomic) and starts with a dot, which no owner can.
   */
  get tempRoot(): string {
    return path.join(this.root, '.tmp');
  }
}
