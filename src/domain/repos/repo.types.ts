import type { Account } from '../users/user.types.ts';
import type { BranchRuleSettings } from './branch-rule.ts';

/** A hosted repository, with its owner loaded (every view of a repository names its owner). */
export type Repository = {
  readonly id: string;
  readonly owner: Account;
  readonly name: string;
  readonly description: string;
  readonly private: boolean;
  /** The repository this one was forked from, when that one still exists. */
  readonly parentId: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
};

/** Ordered access levels: each includes the ones before it. */
export const ACCESS_LEVELS = ['none', 'read', 'write', 'admin'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

export type CollaboratorPermission = 'read' | 'write' | 'admin';

export function atLeast(level: AccessLevel, required: AccessLevel): boolean {
  return ACCESS_LEVELS.indexOf(level) >= ACCESS_LEVELS.indexOf(required);
}

/** What the caller may do with a repository they can see. */
export type RepoAccess = {
  readonly level: Exclude<AccessLevel, 'none'>;
};

/** A repository as one caller sees it: the record and the caller's access. */
export type VisibleRepo = {
  readonly repo: Repository;
  readonly access: RepoAccess;
};

/** A branch that refuses force pushes and deletion, and since when. */
export type ProtectedBranchRecord = {
  /** The rule's name: one branch, or a glob over branch names (`release/*`). */
  readonly branch: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
} & RequiredCheckRule &
  BranchRuleSettings;

/**
 * Whether merging into a protected branch waits for CI, and for which checks: glob patterns
 * over check names (`{workflow} / {job} ({event})`); none means every check of the head commit.
 */
export type RequiredCheckRule = {
  readonly enableStatusCheck: boolean;
  readonly statusCheckContexts: readonly string[];
};
