import type { Commit } from '../../git/read-objects.ts';
import type { RequiredCheckRule, VisibleRepo } from '../repos/repo.types.ts';

/** A branch with its tip commit, as the caller sees it. */
export type BranchInfo = {
  readonly name: string;
  readonly commit: Commit;
  /** Refuses force pushes and deletion. */
  readonly protected: boolean;
  /** The protection's required checks; none on a branch that is not protected. */
  readonly checks?: RequiredCheckRule;
};

/** Branches of one repository plus what showing them needs. */
export type BranchListing = {
  readonly visible: VisibleRepo;
  readonly branches: readonly BranchInfo[];
  /** Branches over all pages. */
  readonly total: number;
  /** Account handles by lowercased commit email, for the idents of these commits. */
  readonly handles: ReadonlyMap<string, string>;
};
