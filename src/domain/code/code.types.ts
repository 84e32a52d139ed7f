import type { Diff } from '../../git/diff.ts';
import type { Commit } from '../../git/read-objects.ts';

/** How a browse location names its commit: a branch, a tag, or a commit id. */
export type RefKind = 'branch' | 'tag' | 'commit';

/** A revision as typed in a URL, and the commit it stands for. */
export type ResolvedRef = {
  /** The branch or tag name, or the id as given. */
  readonly name: string;
  readonly kind: RefKind;
  /** The full id of the commit. */
  readonly sha: string;
};

/** `{ref}/{path}` of a browse URL, split where the ref ends. */
export type CodeLocation = {
  readonly ref: ResolvedRef;
  /** Path inside the tree without leading or trailing slash; '' for the root. */
  readonly path: string;
};

export type TreeItemKind = 'dir' | 'file' | 'symlink' | 'submodule';

export type TreeItem = {
  readonly name: string;
  /** Full path from the root of the tree. */
  readonly path: string;
  readonly kind: TreeItemKind;
  readonly mode: string;
  readonly sha: string;
};

/** A file as a page shows it: its text, or why the text is not shown. */
export type FileContent =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'binary' }
  | { readonly kind: 'too-large' };

export type FileView = {
  readonly path: string;
  readonly name: string;
  readonly sha: string;
  readonly mode: string;
  readonly sizeBytes: number;
  readonly content: FileContent;
  /** Set when the blob is a Git LFS pointer: size and content are then the object's. */
  readonly lfs?: { readonly oid: string };
};

export type HistoryPage = {
  readonly commits: readonly Commit[];
  /** 1-based page number. */
  readonly page: number;
  readonly perPage: number;
  readonly hasMore: boolean;
};

export type CommitDetails = {
  readonly commit: Commit;
  readonly diff: Diff;
};

/** A directory's README: its entry, and whether it is markdown (rendered) or plain text. */
export type ReadmeEntry = {
  readonly item: TreeItem;
  readonly markdown: boolean;
};

/** A README read as text. */
export type Readme = ReadmeEntry & { readonly text: string };

export type RefSummary = {
  readonly name: string;
  readonly sha: string;
  readonly commit: Commit | undefined;
};
