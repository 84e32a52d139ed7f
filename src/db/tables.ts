import type { Generated } from 'kysely';

/**
 * Row shapes as stored. Times are epoch milliseconds (int8 on PostgreSQL, integer on SQLite);
 * booleans come back as 0/1 from SQLite and true/false from PostgreSQL, so stores read them with
 * `Boolean(...)`. Keys are UUID strings.
 */
export type UsersTable = {
  id: string;
  handle: string;
  handle_lower: string;
  kind: 'user' | 'org';
  email: string | null;
  email_lower: string | null;
  full_name: string;
  description: string;
  password_hash: string | null;
  created_at: number;
  updated_at: number;
};

export type OrgMembersTable = {
  org_id: string;
  user_id: string;
  role: 'owner' | 'member';
  created_at: number;
};

export type AccessTokensTable = {
  id: string;
  user_id: string;
  name: string;
  token_hash: string;
  /** The last characters of the token, so people can tell their tokens apart. */
  token_last_eight: string;
  created_at: number;
  last_used_at: number | null;
};

export type SessionsTable = {
  id: string;
  user_id: string;
  token_hash: string;
  created_at: number;
  expires_at: number;
  last_seen_at: number;
};

export type SchemaMigrationsTable = {
  name: string;
  applied_at: Generated<number>;
};

export type RepositoriesTable = {
  id: string;
  owner_id: string;
  name: string;
  name_lower: string;
  description: string;
  private: boolean | number;
  /** The repository this one was forked from; null when not a fork or the parent is gone. */
  parent_id: string | null;
  /** The last pull request number handed out in this repository. */
  pull_counter: number;
  created_at: number;
  updated_at: number;
};

export type CollaboratorsTable = {
  repo_id: string;
  user_id: string;
  permission: 'read' | 'write' | 'admin';
  created_at: number;
};

export type ProtectedBranchesTable = {
  repo_id: string;
  branch: string;
  created_at: number;
};

export type Tables = {
  users: UsersTable;
  org_members: OrgMembersTable;
  access_tokens: AccessTokensTable;
  sessions: SessionsTable;
  repositories: RepositoriesTable;
  collaborators: CollaboratorsTable;
  protected_branches: ProtectedBranchesTable;
};
