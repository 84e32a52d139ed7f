import type { Db } from '../../db/database.ts';

/** Maps commit idents to accounts: the address in a commit names the person who has it. */
export class CommitAuthorStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * The handle of each person whose address is among `emails`, keyed by the lowercased address:
   * one query for a whole page of commits.
   */
  async handlesByEmail(emails: Iterable<string>): Promise<Map<string, string>> {
    const wanted = [...new Set([...emails].map((email) => email.toLowerCase()))].filter(
      (email) => email.length > 0 && email.length <= 254,
    );
    if (wanted.length === 0) return new Map();
    const rows = await this.#db
      .selectFrom('users')
      .select(['email_lower', 'handle'])
      .where('kind', '=', 'user')
      .where('email_lower', 'in', wanted)
      .execute();
    return new Map(
      rows.flatMap((row) => (row.email_lower ? [[row.email_lower, row.handle] as const] : [])),
    );
  }
}
