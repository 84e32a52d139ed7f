import type { Block, BlockKind } from './blocks.ts';
import type { FederationDb } from './federation.tables.ts';

/** The scope a key folds in: a repository's id, or `*` for the whole site. */
function keyOf(repoId: string | undefined, kind: BlockKind, target: string): string {
  return `${repoId ?? '*'} ${kind} ${target}`;
}

function toBlock(row: {
  kind: string;
  target: string;
  repo_id: string | null;
  created_at: number | string;
}): Block {
  return {
    kind: row.kind === 'host' ? 'host' : 'actor',
    target: row.target,
    repoId: row.repo_id ?? undefined,
    createdAt: new Date(Number(row.created_at)),
  };
}

/** Blocks of remote actors and servers made at run time (table `federation_blocks`). */
export class BlocksStore {
  readonly #db: FederationDb;

  constructor(db: FederationDb) {
    this.#db = db;
  }

  /** Adds a block; adding one that exists keeps the first. */
  async add(repoId: string | undefined, kind: BlockKind, target: string): Promise<void> {
    await this.#db
      .insertInto('federation_blocks')
      .values({
        key: keyOf(repoId, kind, target),
        repo_id: repoId ?? null,
        kind,
        target,
        created_at: Date.now(),
      })
      .onConflict((c) => c.column('key').doNothing())
      .execute();
  }

  /** Removes a block; whether there was one. */
  async remove(repoId: string | undefined, kind: BlockKind, target: string): Promise<boolean> {
    const result = await this.#db
      .deleteFrom('federation_blocks')
      .where('key', '=', keyOf(repoId, kind, target))
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** The site's blocks, oldest first. */
  async site(): Promise<Block[]> {
    const rows = await this.#db
      .selectFrom('federation_blocks')
      .selectAll()
      .where('repo_id', 'is', null)
      .orderBy('created_at')
      .orderBy('key')
      .execute();
    return rows.map(toBlock);
  }

  /** One repository's own blocks, oldest first (the site's not included). */
  async ofRepo(repoId: string): Promise<Block[]> {
    const rows = await this.#db
      .selectFrom('federation_blocks')
      .selectAll()
      .where('repo_id', '=', repoId)
      .orderBy('created_at')
      .orderBy('key')
      .execute();
    return rows.map(toBlock);
  }

  /** The blocks that hold for one repository: the site's and its own. */
  async holdingFor(repoId: string | undefined): Promise<Block[]> {
    let query = this.#db.selectFrom('federation_blocks').selectAll();
    query =
      repoId === undefined
        ? query.where('repo_id', 'is', null)
        : query.where((eb) => eb.or([eb('repo_id', 'is', null), eb('repo_id', '=', repoId)]));
    return (await query.execute()).map(toBlock);
  }
}
