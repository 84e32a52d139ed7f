import type { Repository } from '../../domain/repos/repo.types.ts';
import type { MarkdownBase } from './markdown/links.ts';

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

function below(repo: Repository, kind: string, ref: string, path: string): string {
  const tail = path ? `/${encodeSegments(path)}` : '';
  return `${repoUrl(repo)}/${kind}/${encodeSegments(ref)}${tail}`;
}

export function srcUrl(repo: Repository, ref: string, path = ''): string {
  return below(repo, 'src', ref, path);
}

export function rawUrl(repo: Repository, ref: string, path: string): string {
  return below(repo, 'raw', ref, path);
}

export function commitsUrl(repo: Repository, ref: string, path = ''): string {
  return below(repo, 'commits', ref, path);
}

export function commitUrl(repo: Repository, sha: string): string {
  return `${repoUrl(repo)}/commit/${encodeURIComponent(sha)}`;
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

/** A person's or organisation's page. */
export function accountUrl(handle: string): string {
  return `/${encodeURIComponent(handle)}`;
}

/**
 * How a document of `repo` is rendered: relative links into the tree of `ref` (from `dir`),
 * images from its raw files, and `#12` pointing at the repository's pulls.
 */
export function markdownBase(repo: Repository, ref: string, dir = ''): MarkdownBase {
  return {
    links: srcUrl(repo, ref),
    images: rawUrl(repo, ref, '').replace(/\/$/, ''),
    dir,
    repo: { owner: repo.owner.handle, name: repo.name },
  };
}
