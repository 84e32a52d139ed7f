import type { Db } from '../../db/database.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { prepared } from '../../db/prepared.ts';
import type { SshKeysTable } from '../../db/tables.ts';
import { Invalid } from '../errors.ts';
import type { SshKey } from './ssh-key.types.ts';

type Row = SshKeysTable;

function toKey(row: Row): SshKey {
  return {
    id: row.id,
    fingerprint: row.fingerprint,
    title: row.title,
    keyType: row.key_type,
    publicKey: row.public_key,
    readOnly: Boolean(row.read_only),
    createdAt: new Date(Number(row.created_at)),
    lastUsedAt: row.last_used_at === null ? null : new Date(Number(row.last_used_at)),
    owner:
      row.repo_id !== null
        ? { kind: 'deploy', repoId: row.repo_id, addedBy: row.added_by }
        : { kind: 'user', userId: row.user_id ?? '' },
  };
}

/** The `ssh_keys` rows: people's keys and deploy keys, one owner per fingerprint. */
export class SshKeyStore {
  readonly #db: Db;
  /** Every SSH connection asks this once per key it offers: one query on a unique index. */
  readonly #byFingerprint;

  constructor(db: Db) {
    this.#db = db;
    this.#byFingerprint = prepared(db, (p: { fingerprint: string }) =>
      db.selectFrom('ssh_keys').selectAll().where('fingerprint', '=', p.fingerprint),
    );
  }

  /**
   * Stores a key. A fingerprint already stored, whoever holds it, is `Invalid` (a 422, as Gitea
   * answers it): one key opens one account or one deploy slot, never two.
   */
  async insert(key: SshKey): Promise<void> {
    const { owner } = key;
    try {
      await this.#db
        .insertInto('ssh_keys')
        .values({
          id: key.id,
          fingerprint: key.fingerprint,
          user_id: owner.kind === 'user' ? owner.userId : null,
          repo_id: owner.kind === 'deploy' ? owner.repoId : null,
          added_by: owner.kind === 'deploy' ? owner.addedBy : null,
          title: key.title,
          key_type: key.keyType,
          public_key: key.publicKey,
          read_only: key.readOnly,
          created_at: key.createdAt.getTime(),
          last_used_at: null,
        })
        .execute();
    } catch (error) {
      if (isUniqueViolation(error))
        throw new Invalid('this key is already in use', { cause: error });
      throw error;
    }
  }

  async findByFingerprint(fingerprint: string): Promise<SshKey | undefined> {
    const [row] = await this.#byFingerprint({ fingerprint });
    return row && toKey(row);
  }

  /** A person's keys, oldest first. */
  async listByUser(userId: string): Promise<SshKey[]> {
    const rows = await this.#db
      .selectFrom('ssh_keys')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toKey);
  }

  /** A repository's deploy keys, oldest first. */
  async listByRepo(repoId: string): Promise<SshKey[]> {
    const rows = await this.#db
      .selectFrom('ssh_keys')
      .selectAll()
      .where('repo_id', '=', repoId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return rows.map(toKey);
  }

  /** Every key, for `kiln doctor`, in pages of `limit` after the id `after`. */
  async page(after: string, limit: number): Promise<SshKey[]> {
    const rows = await this.#db
      .selectFrom('ssh_keys')
      .selectAll()
      .where('id', '>', after)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map(toKey);
  }

  async delete(id: string): Promise<void> {
    await this.#db.deleteFrom('ssh_keys').where('id', '=', id).execute();
  }

  /** Records a use, unless one was recorded since `notBefore` (another replica's, say). */
  async touch(id: string, at: number, notBefore: number): Promise<void> {
    await this.#db
      .updateTable('ssh_keys')
      .set({ last_used_at: at })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', notBefore)]))
      .execute();
  }
}
