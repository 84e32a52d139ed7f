import { createWriteStream } from 'node:fs';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { clearCreationMarker } from './creation-marker.ts';
import { writeHooks } from './hooks.ts';
import { objectsDir } from './object-store.ts';
import { type RepoHandle, RepoPaths } from './repo-paths.ts';
import { initRepositoryIn, lendObjects } from './repository.ts';
import {
  checkPackedRefsLine,
  clashOf,
  type RestorableKind,
  restorableKind,
  validRefContent,
} from './restorable-files.ts';

/**
 * A restore brings back only data, never behaviour. Each repository of an archive is made afresh
 * the way Kiln makes a new one (its config and hooks, `initRepositoryIn`), and of the archive's
 * files only object files, refs (names checked as a push's would be) and HEAD (a branch or an
 * id) are written into it (restorable-files.ts). Everything else is skipped and reported:
 * hooks, config, info/, alternates, worktrees/, modules/, unknown files, and anything that is not
 * a regular file (symlinks, hard links, devices), so nothing the archive holds runs or points
 * outside the repository. A fork's loan (`objects/info/alternates`) is the one exception, and is
 * not copied either: when every line names another repository of the same archive, Kiln writes
 * that loan itself once both are restored (`serve` then cuts any loan from a private one). Directories are 0700 and files 0600 (objects 0400, as git leaves them).
 */

/** An archive entry the restorer is handed; the path is inside the repositories' root. */
export type RepositoryEntry = {
  /** The entry's own name in the archive, for the report. */
  readonly name: string;
  /** Its path inside the repositories' root. */
  readonly relative: string;
  readonly type: string;
  readonly content: AsyncIterable<Buffer>;
};

/** A path of the archive that was not restored, and why. */
export type SkippedPath = { readonly path: string; readonly reason: string };

/** Longest HEAD or loose ref file read (a ref is an id or `ref: <name>`). */
const MAX_REF_FILE = 4096;

/** How many skipped paths are kept to report; the rest are only counted. */
const MAX_REPORTED = 1000;

async function readSmall(content: AsyncIterable<Buffer>): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of content) {
    size += chunk.length;
    if (size > MAX_REF_FILE) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Writes the checked lines of a packed-refs stream; returns the refs it dropped. */
async function writePackedRefs(content: AsyncIterable<Buffer>, target: string): Promise<string[]> {
  const dropped: string[] = [];
  const lines = createInterface({ input: Readable.from(content), crlfDelay: Infinity });
  let first = true;
  let previousKept = false;
  async function* kept() {
    for await (const line of lines) {
      if (line.length === 0) continue;
      const verdict = checkPackedRefsLine(line, { first, previousKept });
      first = false;
      previousKept = verdict.keep && !line.startsWith('#');
      if (verdict.keep) yield `${line}\n`;
      else dropped.push(verdict.ref);
    }
  }
  await pipeline(Readable.from(kept()), createWriteStream(target, { flags: 'wx', mode: 0o600 }));
  return dropped;
}

/** Restores the repositories of an archive under `root`, one entry at a time. */
export class RepositoryRestorer {
  readonly #paths: RepoPaths;
  readonly #made = new Map<string, RepoHandle>();
  /** Loans to write once every repository is in: borrower → lenders, as `owner/name.git`. */
  readonly #loans = new Map<string, string[]>();
  readonly #skipped: SkippedPath[] = [];
  #skippedCount = 0;

  constructor(root: string) {
    this.#paths = new RepoPaths(root);
  }

  /** Repositories made so far, as `owner/name.git`. */
  get repositories(): readonly string[] {
    return [...this.#made.keys()];
  }

  /** Paths skipped, the first `MAX_REPORTED` of them, and how many there were in all. */
  get skipped(): { readonly paths: readonly SkippedPath[]; readonly count: number } {
    return { paths: this.#skipped, count: this.#skippedCount };
  }

  #skip(pathName: string, reason: string): void {
    this.#skippedCount += 1;
    if (this.#skipped.length < MAX_REPORTED) this.#skipped.push({ path: pathName, reason });
  }

  /** Takes one entry: restores it if it is data, reports it otherwise. */
  async add(entry: RepositoryEntry): Promise<void> {
    const [owner, repo, ...rest] = entry.relative.split('/');
    // An owner's own directory (real tar writes one): nothing to restore, nothing to report.
    if (repo === undefined && entry.type === 'directory') return;
    const dir = `${owner}/${repo}`;
    let handle = this.#made.get(dir);
    if (!handle) {
      handle = this.#repository(owner, repo);
      if (!handle) {
        this.#skip(entry.name, 'not a repository directory Kiln would name');
        return;
      }
      await initRepositoryIn(handle.path, { defaultBranch: 'main' });
      this.#made.set(dir, handle);
    }
    const gitDir = handle.path;
    if (rest.length === 0) {
      if (entry.type !== 'directory') this.#skip(entry.name, 'not a repository directory');
      return;
    }
    const inside = rest.join('/');
    if (entry.type === 'directory') return;
    if (entry.type !== 'file') {
      this.#skip(entry.name, `a ${entry.type}, not a regular file`);
      return;
    }
    if (inside === 'objects/info/alternates') {
      const lenders = this.#lenders(handle, await readSmall(entry.content));
      if (lenders) this.#loans.set(dir, lenders);
      else
        this.#skip(entry.name, 'alternates naming a store that is not a repository of this dump');
      return;
    }
    const kind = restorableKind(inside);
    if (!kind) {
      this.#skip(entry.name, skipReason(inside));
      return;
    }
    const problem = await this.#write(gitDir, inside, kind, entry.content).catch(clashOf);
    if (problem) this.#skip(entry.name, problem);
  }

  async #write(
    gitDir: string,
    inside: string,
    kind: RestorableKind,
    content: AsyncIterable<Buffer>,
  ): Promise<string | undefined> {
    const target = path.join(gitDir, ...inside.split('/'));
    await mkdir(path.dirname(target), { recursive: true, mode: 0o700 });
    if (kind === 'object') {
      // A new file only: an archive naming one object twice does not get to replace it.
      await pipeline(content, createWriteStream(target, { flags: 'wx', mode: 0o400 }));
      return undefined;
    }
    if (kind === 'packed-refs') {
      const dropped = await writePackedRefs(content, target);
      if (dropped.length === 0) return undefined;
      const shown = dropped.slice(0, 5).map((ref) => JSON.stringify(ref));
      return `refs dropped, not valid ref names or lines: ${shown.join(', ')}${dropped.length > 5 ? ` and ${dropped.length - 5} more` : ''}`;
    }
    const text = await readSmall(content);
    if (text === undefined || !validRefContent(text, kind === 'head')) {
      return kind === 'head'
        ? 'HEAD names neither a branch nor an object id; it stays at main'
        : 'a ref file holding neither an object id nor a valid symbolic ref';
    }
    // Beside and renamed: HEAD exists already (the new repository's own).
    const staging = `${target}.restore-tmp`;
    await writeFile(staging, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600 });
    await rename(staging, target);
    return undefined;
  }

  /**
   * Finishes every repository: Kiln's hooks written again (the archive cannot have touched them,
   * but this is where a restore states it) and the creation marker cleared.
   */
  async finish(): Promise<void> {
    for (const [dir, lenders] of this.#loans) {
      const borrower = this.#made.get(dir)!;
      const restored = lenders.map((lender) => this.#made.get(lender));
      if (restored.every((lender) => lender !== undefined)) {
        await lendObjects(borrower, restored);
      } else {
        this.#skip(`${dir}/objects/info/alternates`, 'borrows from a repository the dump lacks');
      }
    }
    for (const handle of this.#made.values()) {
      await writeHooks(handle.path);
      await clearCreationMarker(handle);
    }
  }

  /** The repositories (`owner/name.git`) an alternates file borrows from, if all are Kiln's. */
  #lenders(borrower: RepoHandle, text: string | undefined): string[] | undefined {
    if (text === undefined) return undefined;
    const lines = text.split('\n').filter((line) => line.length > 0);
    const lenders: string[] = [];
    for (const line of lines) {
      const store = path.resolve(objectsDir(borrower.path), line);
      const relative = path.relative(this.#paths.root, store).split(path.sep);
      const [owner, repo, objects, ...rest] = relative;
      const lender = this.#repository(owner, repo);
      if (!lender || objects !== 'objects' || rest.length > 0 || lender.path === borrower.path) {
        return undefined;
      }
      lenders.push(`${owner}/${repo}`);
    }
    return lenders.length > 0 ? lenders : undefined;
  }

  /** The repository an archive's `owner/name.git` names, if it is one Kiln would make there. */
  #repository(owner: string | undefined, repo: string | undefined): RepoHandle | undefined {
    if (!owner || !repo?.endsWith('.git')) return undefined;
    try {
      const handle = this.#paths.resolve({ owner, name: repo.slice(0, -'.git'.length) });
      return handle.path === path.join(this.#paths.root, owner, repo) ? handle : undefined;
    } catch {
      return undefined;
    }
  }
}

/** Why a file of a repository directory is not restored, in the words of the report. */
function skipReason(inside: string): string {
  const top = inside.split('/')[0]!;
  if (top === 'hooks') return 'a hook: Kiln writes its own';
  if (inside === 'config') return "the repository's config: Kiln writes its own";
  if (inside === 'objects/info/alternates' || inside === 'objects/info/http-alternates') {
    return 'alternates point outside the repository';
  }
  if (top === 'refs') return 'not a valid ref name';
  if (top === 'objects') return 'not an object file';
  return 'not an object, a ref or HEAD';
}
