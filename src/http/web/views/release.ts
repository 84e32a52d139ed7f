import type { Release } from '../../../domain/releases/release.types.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { accountUrl, commitUrl, encodeSegments, markdownBase, repoUrl, srcUrl } from '../paths.ts';
import type { ContentRenderer } from '../render/content-renderer.ts';
import { relativeTime, shortDate } from './time.ts';

/**
 * `/repos/{owner}/{name}/releases/tag/{tag}`: the page of one release, the same address the
 * REST converter gives as `html_url` (each tag segment percent-encoded, slashes kept).
 */
export function releaseUrl(repo: Repository, tagName: string): string {
  return `${repoUrl(repo)}/releases/tag/${encodeSegments(tagName)}`;
}

/**
 * Release notes as HTML, relative links resolved in the tree of `ref` (the tag, or the target
 * branch while a tag is still to be made). Every rendering of notes goes through here.
 */
export async function releaseNotes(
  renderer: ContentRenderer,
  repo: Repository,
  ref: string,
  body: string,
): Promise<Html> {
  return renderer.markdown(body, markdownBase(repo, ref));
}

/** What a release box shows beyond the release itself. */
export type ReleaseBoxExtras = {
  /** Whether the title is the page's main heading (the release page) or links to it (the list). */
  readonly standalone?: boolean;
  /** The commit the tag names, when known. */
  readonly commitSha?: string | undefined;
  /** Edit and delete controls, for writers. */
  readonly controls?: Html | null;
};

/** The notes of a published release, rendered in the tree of its tag; null when there are none. */
export async function publishedNotes(
  renderer: ContentRenderer,
  repo: Repository,
  release: Release,
): Promise<Html | null> {
  return release.body.trim() ? releaseNotes(renderer, repo, release.tagName, release.body) : null;
}

/**
 * One release: title, pre-release badge, tag, commit, author, date, notes (rendered beforehand
 * by `publishedNotes`) and source archives.
 */
export function releaseBox(
  repo: Repository,
  release: Release,
  notes: Html | null,
  extras: ReleaseBoxExtras = {},
): Html {
  const archive = `${repoUrl(repo)}/archive/${encodeSegments(release.tagName)}`;
  const title = release.name || release.tagName;
  const heading = extras.standalone
    ? html`<h2 class="h2 kiln-break" id="release-${release.id}">${title}</h2>`
    : html`<h2 class="h3 kiln-break" id="release-${release.id}"><a href="${releaseUrl(repo, release.tagName)}">${title}</a></h2>`;
  const commit = extras.commitSha
    ? html` · <a class="text-mono" href="${commitUrl(repo, extras.commitSha)}" title="${extras.commitSha}">${icon('git-commit')} ${extras.commitSha.slice(0, 7)}</a>`
    : null;
  return html`<section class="Box mb-4" aria-labelledby="release-${release.id}">
    <div class="Box-body">
      <div class="d-flex flex-items-start flex-wrap kiln-gap">
        <div class="flex-auto d-flex flex-items-center flex-wrap kiln-gap">${heading}
          ${release.prerelease ? html`<span class="Label Label--attention">Pre-release</span>` : null}</div>
        ${extras.controls ?? null}
      </div>
      <p class="f6 color-fg-muted mt-1 mb-0">
        <a class="branch-name" href="${srcUrl(repo, release.tagName)}">${icon('tag')} ${release.tagName}</a>${commit}
        ${release.author ? html` · <a href="${accountUrl(release.author.handle)}">${release.author.handle}</a>` : null}
        released ${relativeTime(release.createdAt)}${extras.standalone ? html` (${shortDate(release.createdAt)})` : null}
      </p>
      ${notes ? html`<div class="markdown-body mt-3">${notes}</div>` : null}
    </div>
    <div class="Box-body f6">
      <h3 class="f6 mb-2">Assets</h3>
      <ul class="list-style-none">
        <li class="py-1"><a href="${archive}.zip">${icon('file-zip')} Source code (zip)</a></li>
        <li class="py-1"><a href="${archive}.tar.gz">${icon('file-zip')} Source code (tar.gz)</a></li>
      </ul>
    </div>
  </section>`;
}
