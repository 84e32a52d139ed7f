/**
 * How a comparison is named, in the forms GitHub and Gitea accept in `/compare/{spec}`:
 * `base...head`, or `head` alone (against the default branch); a head may name a fork as
 * `owner:branch` or `owner/repo:branch`. Git refuses `..` and `:` inside ref names, so the first
 * `...` and the first `:` split a spec without ambiguity.
 */

/** The head side: a branch, in the base repository unless an owner (and repository) is named. */
export type HeadSpec = {
  readonly owner?: string;
  readonly repo?: string;
  readonly branch: string;
};

export type CompareSpec = {
  /** Absent: the base repository's default branch. */
  readonly base?: string;
  readonly head: HeadSpec;
};

/** `branch`, `owner:branch` or `owner/repo:branch`; an empty owner or repo counts as absent. */
export function parseHead(head: string): HeadSpec {
  const colon = head.indexOf(':');
  if (colon === -1) return { branch: head };
  const where = head.slice(0, colon);
  const branch = head.slice(colon + 1);
  const slash = where.indexOf('/');
  const owner = slash === -1 ? where : where.slice(0, slash);
  const repo = slash === -1 ? '' : where.slice(slash + 1);
  return { ...(owner ? { owner } : {}), ...(repo ? { repo } : {}), branch };
}

/** `base...head` or `head` alone. */
export function parseCompareSpec(spec: string): CompareSpec {
  const dots = spec.indexOf('...');
  if (dots === -1) return { head: parseHead(spec) };
  const base = spec.slice(0, dots);
  return { ...(base ? { base } : {}), head: parseHead(spec.slice(dots + 3)) };
}

/** The head as a new pull's `head` field takes it: a branch, or `owner/repo:branch` for another. */
export function formatHead(
  base: { readonly ownerHandle: string; readonly name: string },
  head: { readonly ownerHandle: string; readonly name: string; readonly branch: string },
): string {
  const same =
    head.ownerHandle.toLowerCase() === base.ownerHandle.toLowerCase() &&
    head.name.toLowerCase() === base.name.toLowerCase();
  return same ? head.branch : `${head.ownerHandle}/${head.name}:${head.branch}`;
}
