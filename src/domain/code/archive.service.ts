import { type Archive, type ArchiveFormat, createArchive } from '../../git/archive.ts';
import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { ConcurrencyGate, type GateLimits } from '../../lib/concurrency-gate.ts';
import { Unavailable } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';

export type { ArchiveFormat };

/** What an archive is asked of: a ref (branch, tag, commit) and a format. */
export type ArchiveTarget = { readonly ref: string; readonly format: ArchiveFormat };

/** An archive being built: git's output, and the slot to give back once it is sent or dropped. */
export type OpenArchive = Archive & {
  readonly format: ArchiveFormat;
  /** Frees the build slot; calling it again does nothing. */
  readonly release: () => void;
};

/**
 * Source archives (the download links of pages, releases and the API). Archives are not
 * metered (SPEC.md), so their cost is bounded here: at most `maxActive` are built at once, a few
 * more wait up to `maxWaitMs` for a slot, and the rest are `Unavailable` with a retry hint.
 */
export class ArchiveService {
  readonly #repos: Pick<RepoService, 'get' | 'handle'>;
  readonly #catFiles: CatFilePool;
  readonly #gate: ConcurrencyGate;

  constructor(deps: {
    repos: Pick<RepoService, 'get' | 'handle'>;
    catFiles: CatFilePool;
    limits: GateLimits;
  }) {
    this.#repos = deps.repos;
    this.#catFiles = deps.catFiles;
    this.#gate = new ConcurrencyGate(deps.limits);
  }

  /** The repository whose archive `viewer` asks for: NotFound when missing or not readable. */
  async readable(viewer: User | undefined, owner: string, name: string): Promise<Repository> {
    return (await this.#repos.get(viewer, owner, name)).repo;
  }

  /**
   * Starts the archive of `repo` at `target.ref`. The ref is resolved before git starts, so an
   * unknown one is NotFound before any byte exists. The slot is held until `release` is called
   * or the stream closes, whichever is first: git runs until then.
   */
  async open(repo: Repository, target: ArchiveTarget): Promise<OpenArchive> {
    const release = await this.#gate.enter();
    if (!release) {
      throw new Unavailable(
        'Too many archives are being built right now; please try again shortly.',
        { details: { retryAfterSeconds: this.#gate.retryAfterSeconds } },
      );
    }
    try {
      const archive = await createArchive(this.#catFiles, this.#repos.handle(repo), {
        revision: target.ref,
        format: target.format,
      });
      archive.stream.once('close', release);
      return { ...archive, format: target.format, release };
    } catch (error) {
      release();
      throw error;
    }
  }
}
