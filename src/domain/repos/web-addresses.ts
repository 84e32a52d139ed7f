import type { Repository } from './repo.types.ts';

/**
 * The web's addresses of a repository, as paths from the server's root: what the web pages link
 * to, and what lines for people outside the web (the hints after a push, over HTTP or SSH)
 * point at. The web routes serve exactly these shapes.
 */

/** Percent-encodes each segment of a slash-separated name or path, keeping the slashes. */
export function encodeSegments(path: string): string {
  return path
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/** `/repos/{owner}/{name}`, the root of every page about a repository. */
export function repoUrl(repo: Repository): string {
  return `/repos/${encodeURIComponent(repo.owner.handle)}/${encodeURIComponent(repo.name)}`;
}

/**
 * `…/compare/{base}...{head}`: the compare page of two branches (the head as a pull names it).
 * The colon of `owner/repo:branch` stays as it is, as in GitHub's and Gitea's addresses: a path
 * may hold one, and git refuses it inside ref names, so it cannot be mistaken.
 */
export function compareUrl(base: Repository, baseBranch: string, headRef: string): string {
  const head = encodeSegments(headRef).replaceAll('%3A', ':');
  return `${repoUrl(base)}/compare/${encodeSegments(baseBranch)}...${head}`;
}
