import { foldId, newId } from '../../lib/ids.ts';
import { Conflict, Invalid, NotFound } from '../errors.ts';
import type { EventPublisher } from '../events.ts';
import type { Page } from '../paging.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository, VisibleRepo } from '../repos/repo.types.ts';
import type { User } from '../users/user.types.ts';
import type { ReleaseStore } from './release.store.ts';
import type {
  CreateReleaseInput,
  EditReleaseInput,
  Release,
  ReleaseFilter,
  ReleaseSelector,
} from './release.types.ts';
import { checkTagName, type TagService } from './tag.service.ts';

/** What a release is shown with: the repository as the caller sees it. */
export type VisibleRelease = { readonly visible: VisibleRepo; readonly release: Release };

const MAX_TITLE_LENGTH = 255;
const MAX_BODY_LENGTH = 1_000_000;

function checkText(name: string | undefined, body: string | undefined): void {
  if (name !== undefined && name.length > MAX_TITLE_LENGTH) {
    throw new Invalid(`name must be at most ${MAX_TITLE_LENGTH} characters`);
  }
  if (body !== undefined && body.length > MAX_BODY_LENGTH) {
    throw new Invalid(`body must be at most ${MAX_BODY_LENGTH} characters`);
  }
}

function notFound(selector: ReleaseSelector): NotFound {
  return new NotFound(
    selector.tag !== undefined
      ? `release tag does not exist [tag_name: ${selector.tag}]`
      : `release does not exist [id: ${selector.wireId}]`,
  );
}

/**
 * Releases: a tag plus title and notes. Creating one for a missing tag makes the tag first and
 * stores the row second, removing the tag again when the row cannot be stored, so a release
 * never names a tag that is not there. Deleting a release keeps its tag, as Gitea does.
 */
export class ReleaseService {
  readonly #repos: RepoService;
  readonly #store: ReleaseStore;
  readonly #tags: TagService;
  /** Where releases published, updated and deleted are announced (`release.*`). */
  readonly #events: EventPublisher;

  constructor(repos: RepoService, store: ReleaseStore, tags: TagService, events: EventPublisher) {
    this.#repos = repos;
    this.#store = store;
    this.#tags = tags;
    this.#events = events;
  }

  /** A page of releases, newest first; drafts were asked for only → none. */
  async list(
    viewer: User | undefined,
    owner: string,
    name: string,
    page: Page,
    filter: ReleaseFilter = {},
  ): Promise<{ visible: VisibleRepo; items: Release[]; total: number }> {
    const visible = await this.#repos.get(viewer, owner, name);
    if (filter.draft === true) return { visible, items: [], total: 0 };
    return { visible, ...(await this.#store.list(visible.repo.id, page, filter)) };
  }

  async get(
    viewer: User | undefined,
    owner: string,
    name: string,
    selector: ReleaseSelector,
  ): Promise<VisibleRelease> {
    const visible = await this.#repos.get(viewer, owner, name);
    return { visible, release: await this.#find(visible.repo, selector) };
  }

  /** The newest release that is not a prerelease. */
  async latest(viewer: User | undefined, owner: string, name: string): Promise<VisibleRelease> {
    const visible = await this.#repos.get(viewer, owner, name);
    const release = await this.#store.latest(visible.repo.id);
    if (!release) throw new NotFound('release does not exist [latest]');
    return { visible, release };
  }

  async create(
    actor: User,
    owner: string,
    name: string,
    input: CreateReleaseInput,
  ): Promise<VisibleRelease> {
    if (input.draft === true) throw new Invalid('draft releases are not supported');
    const visible = await this.#repos.require(actor, owner, name, 'write');
    const { repo } = visible;
    const tagName = checkTagName(input.tagName);
    checkText(input.name, input.body);
    if (await this.#store.findByTag(repo.id, tagName)) {
      throw new Conflict(`release tag already exists [tag_name: ${tagName}]`);
    }
    const target = input.targetCommitish?.trim() || (await this.#repos.defaultBranch(repo));
    const id = newId();
    const now = Date.now();
    await this.#withTag(repo, tagName, target, () =>
      this.#store.insert({
        id,
        repoId: repo.id,
        tagName,
        targetCommitish: target,
        name: input.name?.trim() || tagName,
        body: input.body ?? '',
        prerelease: input.prerelease === true,
        authorId: actor.id,
        createdAt: now,
      }),
    );
    const release = await this.#find(repo, { tag: tagName });
    await this.#events.publish('release.published', { repo, release });
    return { visible, release };
  }

  /** Changes the given fields; empty strings leave tag, target and title as they are (as Gitea). */
  async update(
    actor: User,
    owner: string,
    name: string,
    selector: ReleaseSelector,
    change: EditReleaseInput,
  ): Promise<VisibleRelease> {
    if (change.draft === true) throw new Invalid('draft releases are not supported');
    const visible = await this.#repos.require(actor, owner, name, 'write');
    const { repo } = visible;
    const release = await this.#find(repo, selector);
    checkText(change.name, change.body);
    const tagName = change.tagName?.trim() ? checkTagName(change.tagName) : release.tagName;
    const target = change.targetCommitish?.trim() || release.targetCommitish;
    const update = {
      ...(tagName !== release.tagName ? { tagName } : {}),
      ...(target !== release.targetCommitish ? { targetCommitish: target } : {}),
      ...(change.name?.trim() ? { name: change.name.trim() } : {}),
      ...(change.body !== undefined ? { body: change.body } : {}),
      ...(change.prerelease !== undefined ? { prerelease: change.prerelease } : {}),
    };
    if (tagName !== release.tagName) {
      if (await this.#store.findByTag(repo.id, tagName)) {
        throw new Conflict(`release tag already exists [tag_name: ${tagName}]`);
      }
      await this.#withTag(repo, tagName, target, () => this.#store.update(release.id, update));
    } else {
      await this.#store.update(release.id, update);
    }
    const updated = await this.#find(repo, { wireId: foldId(release.id) });
    await this.#events.publish('release.updated', { repo, release: updated, actor });
    return { visible, release: updated };
  }

  /** Removes the release; its git tag stays. */
  async delete(actor: User, owner: string, name: string, selector: ReleaseSelector): Promise<void> {
    const { repo } = await this.#repos.require(actor, owner, name, 'write');
    const release = await this.#find(repo, selector);
    await this.#store.delete(release.id);
    await this.#events.publish('release.deleted', { repo, release, actor });
  }

  async #find(repo: Repository, selector: ReleaseSelector): Promise<Release> {
    if (selector.tag !== undefined) {
      const release = await this.#store.findByTag(repo.id, selector.tag);
      if (!release) throw notFound(selector);
      return release;
    }
    // Wire ids are one-way folds: match them among this repository's releases only.
    const ids = await this.#store.listIds(repo.id);
    const id = ids.find((candidate) => foldId(candidate) === selector.wireId);
    const release = id === undefined ? undefined : await this.#store.findById(repo.id, id);
    if (!release) throw notFound(selector);
    return release;
  }

  /**
   * Runs `store` with the tag present: an existing tag is used as it is, a missing one is made
   * at `target` first and removed again when `store` fails.
   */
  async #withTag(
    repo: Repository,
    tagName: string,
    target: string,
    store: () => Promise<void>,
  ): Promise<void> {
    const created = await this.#tags.ensure(repo, tagName, target);
    try {
      await store();
    } catch (error) {
      if (created) await this.#tags.undo(repo, tagName, created);
      throw error;
    }
  }
}
