import type { Db } from '../../db/database.ts';
import { uniqueOrConflict } from '../../db/errors.ts';
import type { RemoteAuthor } from '../users/remote-author.ts';

/** Who on another server proposed each pull filed under the remote author account. */
export class RemoteAuthorStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /** Records the proposer of `pullId`; Conflict when the offer already opened a pull. */
  async insert(pullId: string, author: RemoteAuthor, offerId: string): Promise<void> {
    await uniqueOrConflict(
      () =>
        this.#db
          .insertInto('pull_remote_authors')
          .values({
            pull_id: pullId,
            actor: author.actor,
            login: author.login,
            avatar_url: author.avatarUrl,
            offer_id: offerId,
            created_at: Date.now(),
          })
          .execute(),
      'this offer already opened a pull request',
    );
  }

  /** The id of the pull the offer `offerId` opened, if it opened one. */
  async pullOfOffer(offerId: string): Promise<string | undefined> {
    const row = await this.#db
      .selectFrom('pull_remote_authors')
      .select('pull_id')
      .where('offer_id', '=', offerId)
      .executeTakeFirst();
    return row?.pull_id;
  }

  /** The offer that opened `pullId` and who sent it, when it came from another server. */
  async proposalOf(pullId: string): Promise<{ author: RemoteAuthor; offerId: string } | undefined> {
    const row = await this.#db
      .selectFrom('pull_remote_authors')
      .select(['actor', 'login', 'avatar_url', 'offer_id'])
      .where('pull_id', '=', pullId)
      .executeTakeFirst();
    if (!row) return undefined;
    const author = { actor: row.actor, login: row.login, avatarUrl: row.avatar_url };
    return { author, offerId: row.offer_id };
  }

  /** The remote proposers of those of `pullIds` that have one. */
  async forPulls(pullIds: readonly string[]): Promise<Map<string, RemoteAuthor>> {
    if (pullIds.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('pull_remote_authors')
      .select(['pull_id', 'actor', 'login', 'avatar_url'])
      .where('pull_id', 'in', [...new Set(pullIds)])
      .execute();
    return new Map(
      rows.map((row) => [
        row.pull_id,
        { actor: row.actor, login: row.login, avatarUrl: row.avatar_url },
      ]),
    );
  }
}
