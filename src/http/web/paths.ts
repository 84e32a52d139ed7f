import type { Repository } from '../../domain/repos/repo.types.ts';
import { encodeSegments, repoUrl } from '../../domain/repos/web-addresses.ts';
import type { MarkdownBase } from './markdown/links.ts';

// The shapes other edges point at too live with the domain; the web's pages link through here.
export { compareUrl, encodeSegments, repoUrl } from '../../domain/repos/web-addresses.ts';

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
