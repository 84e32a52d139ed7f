import type { Kysely } from 'kysely';
import type { Db } from '../../db/database.ts';

/** Rows of the federation tables (migration `0008-federation`). Times are epoch milliseconds. */
export type FederationTables = {
  federation_keys: {
    actor: string;
    rsa_public: string;
    rsa_private: string;
    ed25519_public: string;
    ed25519_private: string;
    created_at: number;
  };
  federation_followers: {
    actor: string;
    follower: string;
    inbox: string;
    shared_inbox: string | null;
    host: string;
    created_at: number;
  };
  federation_stars: { repo_id: string; actor: string; host: string; created_at: number };
  federation_activities: { id: string; actor: string; json: string; created_at: number };
  federation_kv: { key: string; value: string; expires_at: number | null };
  federation_queue: {
    id: string;
    message: string;
    run_at: number;
    claimed_until: number | null;
    attempts: number;
    created_at: number;
  };
  /** Blocks made at run time (migration `0040-federation-blocks`). */
  federation_blocks: {
    key: string;
    repo_id: string | null;
    kind: string;
    target: string;
    created_at: number;
  };
  /** Notes sent to remote proposers, by the comment or review they carry (migration `0043`). */
  federation_sent_notes: {
    source: string;
    pull_id: string;
    note_id: string;
    recipient: string;
    created_at: number;
  };
};

/** The database seen with the federation tables only; the rest of Kiln never reads them. */
export type FederationDb = Kysely<FederationTables>;

/** Narrows Kiln's database handle to the federation tables. */
export function federationDb(db: Db): FederationDb {
  // A cast, not `withTables()`: that makes a second handle over the same connections, one that
  // SQLite's direct path for prepared queries (db/prepared.ts) does not know.
  return db as unknown as FederationDb;
}
