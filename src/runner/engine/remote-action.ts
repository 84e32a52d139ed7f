/**
 * How a remote `uses:` names the repository the runner fetches and where the fetch is cached.
 *
 * Invariant: whatever a workflow writes after `uses:`, the runner fetches only over http(s)
 * from a host the text names (or the task's actions source), hands git no argument it could
 * read as an option, and keeps the fetched tree inside its own cache entry of the actions
 * directory, one entry per source, owner, repository and ref. So `..` segments, a ref such as
 * `--upload-pack=…`, or credentials, other schemes and whitespace in the address are refused
 * with the reason, before git runs.
 */
import { join, sep } from 'node:path';

/** Where a remote `uses:` comes from: the git URL, the cache entry and what the log calls it. */
export type RemoteAction = {
  readonly url: string;
  readonly source: string;
  /** Relative to the actions directory; never leaves it (`insideCache`). */
  readonly cacheDir: string;
  /** The action's directory inside the repository, `''` or `/a/b` without `.` or `..`. */
  readonly sub: string;
  readonly ref: string;
};

/** An owner or repository name as forges spell them: no dots alone, no leading dash. */
const NAME = /^(?!\.{1,2}$)[A-Za-z0-9_.][A-Za-z0-9_.-]*$/;
/** A host name or IPv4 address, or a bracketed IPv6 address, with an optional port. */
const HOST = /^(?:(?![.-])(?!.*\.\.)[A-Za-z0-9_.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;
/** A tag, branch or commit: git's ref-name rules, and never an option's leading dash. */
const REF = /^(?!.*\.\.)(?!.*\/\/)(?!.*\/$)(?!.*\.lock$)[A-Za-z0-9_][A-Za-z0-9_./+-]*$/;
/** A path segment inside the action's repository. */
const SEGMENT = /^(?!\.{1,2}$)[^\s\\]+$/;

function refuse(uses: string, why: string): never {
  throw new Error(
    `cannot read "uses: ${uses}": ${why} (expected owner/repo[/path]@ref or https://host/owner/repo[/path]@ref)`,
  );
}

/**
 * Splits the text of a remote `uses:`: `owner/repo[/path]@ref` from the task's actions source,
 * or `https://host/owner/repo[/path]@ref` (also `http://`) from that host, as Gitea's runner
 * reads them. Throws with the reason for anything else.
 */
export function remoteAction(uses: string, actionsUrl: string): RemoteAction {
  const at = uses.lastIndexOf('@');
  if (at < 0) refuse(uses, 'no @ref');
  const ref = uses.slice(at + 1);
  const address = uses.slice(0, at);
  const full = /^(https?):\/\/([^/]*)\/(.*)$/.exec(address);
  if (!full && /^[A-Za-z][A-Za-z0-9+.-]*:/.test(address)) refuse(uses, 'only http(s) addresses');
  const host = full?.[2] ?? '';
  if (full && !HOST.test(host)) refuse(uses, `"${host}" is not a host name`);
  const [owner = '', repo = '', ...path] = (full?.[3] ?? address).split('/');
  if (!NAME.test(owner) || !NAME.test(repo)) refuse(uses, 'owner and repository must be names');
  if (!path.every((segment) => SEGMENT.test(segment))) refuse(uses, 'a bad path in the repository');
  if (!REF.test(ref)) refuse(uses, `"${ref}" is not a ref`);
  const source = full ? `${full[1]}://${host}` : actionsUrl;
  // Actions of the same name from different sources, or refs that differ only in `/`, must not
  // share a cache entry: each part is encoded, so none holds a separator or a `..`.
  const origin = full ? ['+', encodeURIComponent(host)] : [];
  const cacheDir = join(...origin, owner, `${repo}@${encodeURIComponent(ref)}`);
  return {
    url: `${source}/${owner}/${repo}`,
    source,
    cacheDir,
    sub: path.length > 0 ? `/${path.join('/')}` : '',
    ref,
  };
}

/** Whether `path` is `root` itself or lies below it. */
export function insideCache(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : `${root}${sep}`);
}
