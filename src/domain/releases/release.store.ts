import type { Selectable } from 'kysely';
import type { Db } from '../../db/database.ts';
import { uniqueOrConflict } from '../../db/errors.ts';
import { KeptTexts } from '../../db/kept-texts.ts';
import type { ReleasesTable } from '../../db/tables.ts';
import type { CacheRegistry } from '../../lib/cache-registry.ts';
import { contentHash } from '../../lib/content-hash.ts';
import type { Page } from '../paging.ts';
import type { Release, ReleaseFilter } from './release.types.ts';

const AUTHOR_COLUMNS = [
  'author.handle as author_handle',
  'author.kind as author_kind',
  'author.email as author_email',
  'author.full_name as author_full_name',
  'author.description as author_description',
  'author.created_at as author_created_at',
  'author.updated_at as author_updated_at',
] as const;

/** Every column but the notes, which `KeptTexts` reads only when it does not hold them. */
const RELEASE_COLUMNS = [
  'releases.id',
  'releases.repo_id',
  'releases.tag_name',
  'releases.target_commitish',
  'releases.name',
  'releases.body_hash',
  'releases.prerelease',
  'releases.author_id',
  'releases.created_at',
  'releases.updated_at',
] as const;

/** Characters of release notes kept in memory (see `KeptTexts`). */
const KEPT_NOTES_CHARS = 4 * 1024 * 1024;

type ReleaseRow = Omit<Selectable<ReleasesTable>, 'body'> & {
  author_handle: string | null;
  author_kind: 'user' | 'org' | null;
  author_email: string | null;
  author_full_name: string | null;
  author_description: string | null;
  author_created_at: number | null;
  author_updated_at: number | null;
};

function toRelease(row: ReleaseRow, body: string): Release {
  const author =
    row.author_id !== null && row.author_handle !== null
      ? {
          id: row.author_id,
          handle: row.author_handle,
          kind: row.author_kind ?? 'user',
          email: row.author_email,
          fullName: row.author_full_name ?? '',
          description: row.author_description ?? '',
          createdAt: new Date(Number(row.author_created_at)),
          updatedAt: new Date(Number(row.author_updated_at)),
        }
      : undefined;
  return {
    id: row.id,
    repoId: row.repo_id,
    tagName: row.tag_name,
    targetCommitish: row.target_commitish,
    name: row.name,
    body,
    prerelease: Boolean(row.prerelease),
    author,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** A release about to be published; `createdAt` (epoch ms) is also its first update time. */
export type NewRelease = Pick<
  Release,
  'id' | 'repoId' | 'tagName' | 'targetCommitish' | 'name' | 'body' | 'prerelease'
> & { readonly authorId: string; readonly createdAt: number };

/** The fields an edit may change; absent ones stay. */
export type ReleaseChange = Partial<
  Pick<Release, 'tagName' | 'targetCommitish' | 'name' | 'body' | 'prerelease'>
>;

/** Release rows with their author, newest first wherever order matters. */
export class ReleaseStore {
  readonly #db: Db;
  readonly #notes = new KeptTexts(KEPT_NOTES_CHARS);

  /** Declares its kept texts to `caches` (the composition root's registry) when given. */
  constructor(db: Db, caches?: CacheRegistry) {
    this.#db = db;
    this.#notes.declareTo(caches, 'release_notes');
  }

  #select() {
    return this.#db
      .selectFrom('releases')
      .leftJoin('users as author', 'author.id', 'releases.author_id')
      .select(RELEASE_COLUMNS)
      .select(AUTHOR_COLUMNS);
  }

  /** The releases of the rows, their notes from memory or read. */
  async #withNotes(rows: readonly ReleaseRow[]): Promise<Release[]> {
    const notes = await this.#notes.of(
      rows.map((row) => ({ id: row.id, hash: row.body_hash })),
      (ids) =>
        this.#db
          .selectFrom('releases')
          .select(['id', 'body as text'])
          .where('id', 'in', ids)
          .execute(),
    );
    return rows.map((row, index) => toRelease(row, notes[index] ?? ''));
  }

  async #one(row: ReleaseRow | undefined): Promise<Release | undefined> {
    return row && (await this.#withNotes([row]))[0];
  }

  /** Inserts a release; Conflict when the repository already has one for the tag. */
  async insert(release: NewRelease): Promise<void> {
    const row: ReleasesTable = {
      id: release.id,
      repo_id: release.repoId,
      tag_name: release.tagName,
      target_commitish: release.targetCommitish,
      name: release.name,
      body: release.body,
      body_hash: contentHash(release.body),
      prerelease: release.prerelease,
      author_id: release.authorId,
      created_at: release.createdAt,
      updated_at: release.createdAt,
    };
    await uniqueOrConflict(
      () => this.#db.insertInto('releases').values(row).execute(),
      `release tag already exists [tag_name: ${row.tag_name}]`,
    );
  }

  async findByTag(repoId: string, tagName: string): Promise<Release | undefined> {
    const row = await this.#select()
      .where('releases.repo_id', '=', repoId)
      .where('releases.tag_name', '=', tagName)
      .executeTakeFirst();
    return this.#one(row as ReleaseRow | undefined);
  }

  async findById(repoId: string, id: string): Promise<Release | undefined> {
    const row = await this.#select()
      .where('releases.repo_id', '=', repoId)
      .where('releases.id', '=', id)
      .executeTakeFirst();
    return this.#one(row as ReleaseRow | undefined);
  }

  /** The internal keys of a repository's releases (for matching a folded wire id). */
  async listIds(repoId: string): Promise<string[]> {
    const rows = await this.#db
      .selectFrom('releases')
      .select('id')
      .where('repo_id', '=', repoId)
      .execute();
    return rows.map((row) => row.id);
  }

  /** A page of a repository's releases, newest first, with the total over all pages. */
  async list(
    repoId: string,
    page: Page,
    filter: ReleaseFilter = {},
  ): Promise<{ items: Release[]; total: number }> {
    let base = this.#db.selectFrom('releases').where('releases.repo_id', '=', repoId);
    if (filter.prerelease !== undefined) {
      base = base.where('releases.prerelease', '=', filter.prerelease);
    }
    const [rows, count] = await Promise.all([
      base
        .leftJoin('users as author', 'author.id', 'releases.author_id')
        .select(RELEASE_COLUMNS)
        .select(AUTHOR_COLUMNS)
        .orderBy('releases.created_at', 'desc')
        .orderBy('releases.id', 'desc')
        .limit(page.limit)
        .offset(page.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    ]);
    return { items: await this.#withNotes(rows as ReleaseRow[]), total: Number(count.total) };
  }

  /** The newest release that is not a prerelease. */
  async latest(repoId: string): Promise<Release | undefined> {
    const row = await this.#select()
      .where('releases.repo_id', '=', repoId)
      .where('releases.prerelease', '=', false)
      .orderBy('releases.created_at', 'desc')
      .orderBy('releases.id', 'desc')
      .limit(1)
      .executeTakeFirst();
    return this.#one(row as ReleaseRow | undefined);
  }

  async update(id: string, change: ReleaseChange): Promise<void> {
    const columns = {
      ...(change.tagName !== undefined && { tag_name: change.tagName }),
      ...(change.targetCommitish !== undefined && { target_commitish: change.targetCommitish }),
      ...(change.name !== undefined && { name: change.name }),
      ...(change.body !== undefined && { body: change.body, body_hash: contentHash(change.body) }),
      ...(change.prerelease !== undefined && { prerelease: change.prerelease }),
    };
    await uniqueOrConflict(
      () =>
        this.#db
          .updateTable('releases')
          .set({ ...columns, updated_at: Date.now() })
          .where('id', '=', id)
          .execute(),
      `release tag already exists [tag_name: ${change.tagName ?? ''}]`,
    );
  }

  async delete(id: string): Promise<void> {
    await this.#db.deleteFrom('releases').where('id', '=', id).execute();
  }
}
