import type { Db } from '../../db/database.ts';

/** Addresses git's allowed-signers list can name as they are: no space, quote, comma or glob. */
const PLAIN_ADDRESS = /^[^\s",*?!\\]+@[^\s",*?!\\]+$/;

/**
 * git's allowed-signers list of every person's SSH key, each under its owner's email address
 * (unique to one account), in the git namespace. A commit's signature is then good (`%G?` =
 * `G`) only for a registered key, and names the address of the key's owner (`%GS`), which the
 * push hook requires to be the committer's. Deploy keys sign for nobody.
 */
export class CommitSignersStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async allowedSigners(): Promise<string> {
    const rows = await this.#db
      .selectFrom('ssh_keys')
      .innerJoin('users', 'users.id', 'ssh_keys.user_id')
      .select(['users.email', 'ssh_keys.public_key'])
      .where('ssh_keys.user_id', 'is not', null)
      .where('users.email', 'is not', null)
      .orderBy('ssh_keys.id')
      .execute();
    return rows
      .filter((row) => row.email !== null && PLAIN_ADDRESS.test(row.email))
      .filter((row) => /^[a-z0-9@.-]+ [A-Za-z0-9+/=]+$/.test(row.public_key))
      .map((row) => `${row.email} namespaces="git" ${row.public_key}\n`)
      .join('');
  }
}
