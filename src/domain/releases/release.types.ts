import type { Account } from '../users/user.types.ts';

/** A release: a published tag with a title and notes. Drafts do not exist in Kiln. */
export type Release = {
  readonly id: string;
  readonly repoId: string;
  readonly tagName: string;
  /** The branch or commit the tag was made from, as the publisher named it. */
  readonly targetCommitish: string;
  readonly name: string;
  readonly body: string;
  readonly prerelease: boolean;
  /** Undefined once the publishing account is gone. */
  readonly author: Account | undefined;
  readonly createdAt: Date;
  readonly updatedAt: Date;
};

/** How a caller names one release of a repository: by tag, or by its folded wire id. */
export type ReleaseSelector =
  | { readonly tag: string; readonly wireId?: undefined }
  | { readonly wireId: number; readonly tag?: undefined };

export type CreateReleaseInput = {
  readonly tagName: string;
  /** Branch or commit for a tag that does not exist yet; the default branch when empty. */
  readonly targetCommitish?: string | undefined;
  readonly name?: string | undefined;
  readonly body?: string | undefined;
  readonly prerelease?: boolean | undefined;
  readonly draft?: boolean | undefined;
};

export type EditReleaseInput = {
  readonly tagName?: string | undefined;
  readonly targetCommitish?: string | undefined;
  readonly name?: string | undefined;
  readonly body?: string | undefined;
  readonly prerelease?: boolean | undefined;
  readonly draft?: boolean | undefined;
};

export type ReleaseFilter = {
  /** Only prereleases (true) or only full releases (false). */
  readonly prerelease?: boolean | undefined;
  /** Drafts only (true) lists nothing, since there are none. */
  readonly draft?: boolean | undefined;
};
