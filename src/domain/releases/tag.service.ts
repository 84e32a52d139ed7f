import type { CatFilePool } from '../../git/cat-file-pool.ts';
import { isValidRefName } from '../../git/ref-names.ts';
import { createTag, deleteRef, findRef } from '../../git/refs.ts';
import { Conflict, Invalid, NotFound } from '../errors.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository, VisibleRepo } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { ReleaseStore } from './release.store.ts';

/**
 * A tag name as typed (surrounding blanks dropped), or Invalid. Beyond git's own rules it may not
 * look like an option, name HEAD, or spell out a full ref, so `refs/tags/<name>` is unambiguous.
 */
export function checkTagName(raw: string): string {
  const name = raw.trim();
  if (
    !isValidRefName(name, true) ||
    name.startsWith('-') ||
    name === 'HEAD' ||
    name.startsWith('refs/')
  ) {
    throw new Invalid(`"${raw}" is not a valid tag name`);
  }
  return name;
}

/** What a new tag is made of: its name and the branch or commit it points at. */
export type CreateTagInput = { readonly tagName: string; readonly target: string };

/**
 * Lightweight tags made and removed by people with write access, and by releases. Kiln has no
 * protected tags; the one rule beyond write access is that a tag a release is published on
 * cannot be deleted while the release exists (as Gitea refuses it), so no release ever names a
 * missing tag. Deleting the release first keeps the tag, and the tag can go after it.
 */
export class TagService {
  readonly #repos: RepoService;
  readonly #releases: ReleaseStore;
  readonly #catFiles: CatFilePool;

  constructor(repos: RepoService, releases: ReleaseStore, catFiles: CatFilePool) {
    this.#repos = repos;
    this.#releases = releases;
    this.#catFiles = catFiles;
  }

  /**
   * Makes `refs/tags/<name>` at the commit `target` names.
   *
   * @throws Conflict when the tag exists; Invalid for a bad name or target; Forbidden without
   *   write access; NotFound when the repository is not visible.
   */
  async create(
    actor: User,
    owner: string,
    name: string,
    input: CreateTagInput,
  ): Promise<{ visible: VisibleRepo; sha: string }> {
    const visible = await this.#repos.require(actor, owner, name, 'write');
    const tagName = checkTagName(input.tagName);
    const handle = this.#repos.handle(visible.repo);
    if ((await findRef(handle, `refs/tags/${tagName}`)) !== undefined) {
      throw new Conflict(`tag "${tagName}" already exists`);
    }
    const target = input.target.trim() || (await this.#repos.defaultBranch(visible.repo));
    const sha = await this.ensure(visible.repo, tagName, target);
    if (sha === undefined) throw new Conflict(`tag "${tagName}" already exists`);
    return { visible, sha };
  }

  /**
   * Removes a tag that no release is published on.
   *
   * @throws NotFound when there is no such tag; Conflict when a release uses it.
   */
  async delete(actor: User, owner: string, name: string, rawTag: string): Promise<void> {
    const { repo } = await this.#repos.require(actor, owner, name, 'write');
    const tagName = rawTag.trim();
    const ref = `refs/tags/${tagName}`;
    const handle = this.#repos.handle(repo);
    const sha = isValidRefName(ref) ? await findRef(handle, ref) : undefined;
    if (sha === undefined) throw new NotFound(`tag does not exist [name: ${tagName}]`);
    if (await this.#releases.findByTag(repo.id, tagName)) {
      throw new Conflict(`tag "${tagName}" has a release; delete the release first, then the tag`);
    }
    // Compare-and-swap on the sha just read: a tag moved meanwhile is not deleted blindly.
    await deleteRef(handle, ref, sha);
  }

  /**
   * The sha of a tag this call made at `target`, or undefined when the tag was already there
   * (then it is used as it is). For callers that checked access already.
   */
  async ensure(repo: Repository, tagName: string, target: string): Promise<string | undefined> {
    const handle = this.#repos.handle(repo);
    if ((await findRef(handle, `refs/tags/${tagName}`)) !== undefined) return undefined;
    if (await this.#repos.isEmpty(repo)) throw new Invalid('repository is empty');
    try {
      return await createTag(this.#catFiles, handle, tagName, target);
    } catch (error) {
      if (error instanceof NotFound) throw new NotFound(`target "${target}" not found`);
      if (error instanceof Invalid) throw new Invalid(`target "${target}" is not a valid revision`);
      // Made by someone else in the meantime: use it as it is. Otherwise the name collides with
      // another ref (`v1` exists, `v1/x` cannot), and nothing may be made.
      if (error instanceof Conflict) {
        if ((await findRef(handle, `refs/tags/${tagName}`)) !== undefined) return undefined;
        throw new Conflict(`tag "${tagName}" cannot be created next to an existing tag`);
      }
      throw error;
    }
  }

  /** Removes a tag `ensure` made, when what it was made for failed. Best effort. */
  async undo(repo: Repository, tagName: string, sha: string): Promise<void> {
    await deleteRef(this.#repos.handle(repo), `refs/tags/${tagName}`, sha).catch(() => {});
  }
}
