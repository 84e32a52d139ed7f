import type { Pull } from '../../../domain/pulls/pull.types.ts';
import type { ReviewComment } from '../../../domain/pulls/review-comment.service.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import type { RemoteAuthor } from '../../../domain/users/remote-author.ts';
import type { Account } from '../../../domain/users/user.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { accountUrl, repoUrl } from '../paths.ts';
import { relativeTime } from './time.ts';

export type PullTab = 'conversation' | 'commits' | 'files';

export function pullUrl(repo: Repository, number: number): string {
  return `${repoUrl(repo)}/pulls/${number}`;
}

/** Open, merged or closed, as a Primer state badge. */
export function pullState(pull: Pull): Html {
  if (pull.merged)
    return html`<span class="State State--merged">${icon('git-merge')} Merged</span>`;
  if (pull.state === 'closed')
    return html`<span class="State State--closed">${icon('git-pull-request-closed')} Closed</span>`;
  return html`<span class="State State--open">${icon('git-pull-request')} Open</span>`;
}

/**
 * Who opened a pull, linked: a local account to its page, a person of another server as
 * `@name@host` to their actor on their server (`rel="nofollow"`: it leads off this site).
 */
function posterLink(
  author: Account | undefined,
  remote: RemoteAuthor | undefined,
  cls: string,
  nobody: string,
): Html {
  if (remote)
    return html`<a class="${cls}" href="${remote.actor}" rel="nofollow">@${remote.login}</a>`;
  return author
    ? html`<a class="${cls}" href="${accountUrl(author.handle)}">${author.handle}</a>`
    : html`${nobody}`;
}

/** One row of the pull request list. */
export function pullRow(
  repo: Repository,
  pull: Pull,
  author: Account | undefined,
  remote?: RemoteAuthor,
): Html {
  const glyph = pull.merged
    ? 'git-merge'
    : pull.state === 'closed'
      ? 'git-pull-request-closed'
      : 'git-pull-request';
  const color = pull.merged
    ? 'color-fg-done'
    : pull.state === 'closed'
      ? 'color-fg-danger'
      : 'color-fg-open';
  const when =
    pull.merged && pull.mergedAt
      ? html`merged ${relativeTime(pull.mergedAt)}`
      : html`opened ${relativeTime(pull.createdAt)}`;
  return html`<li class="Box-row d-flex flex-items-start kiln-gap">
    <span class="${color} mt-1">${icon(glyph)}</span>
    <div class="flex-auto min-width-0">
      <a class="Link--primary text-bold kiln-break" href="${pullUrl(repo, pull.number)}">${pull.title}</a>
      <p class="f6 color-fg-muted mb-0 mt-1">#${pull.number} ${when} by ${posterLink(author, remote, 'Link--muted', 'someone')} · <span class="branch-name">${pull.headBranch}</span> → <span class="branch-name">${pull.baseBranch}</span></p>
    </div>
  </li>`;
}

/**
 * Title, state and "who wants to merge what into what", above every tab of a pull: `author` is
 * the pull's author, or once merged the person who merged it ("alice merged …").
 */
export function pullHeader(
  repo: Repository,
  pull: Pull,
  author: Account | undefined,
  headLabel: string,
  tab: PullTab,
  counts: { commits: number; files: number },
  remote?: RemoteAuthor,
): Html {
  const base = pullUrl(repo, pull.number);
  const tabLink = (name: string, href: string, glyph: string, current: boolean, count?: number) =>
    html`<a class="UnderlineNav-item" href="${href}" ${current ? html`aria-current="page"` : null}>${icon(glyph)}<span>${name}</span>${count === undefined ? null : html`<span class="Counter">${count}</span>`}</a>`;
  return html`<div class="mb-3">
    <h2 class="h2 text-normal kiln-break">${pull.title} <span class="color-fg-muted">#${pull.number}</span></h2>
    <div class="d-flex flex-items-center flex-wrap kiln-gap mt-2">
      ${pullState(pull)}
      <span class="color-fg-muted">${posterLink(author, remote, 'text-bold Link--primary', 'Someone')}
        ${pull.merged ? 'merged' : 'wants to merge'} into <span class="branch-name">${pull.baseBranch}</span> from <span class="branch-name">${headLabel}</span></span>
    </div>
  </div>
  <nav class="UnderlineNav mb-3" aria-label="Pull request">
    <div class="UnderlineNav-body">
      ${tabLink('Conversation', base, 'comment-discussion', tab === 'conversation')}
      ${tabLink('Commits', `${base}/commits`, 'git-commit', tab === 'commits', counts.commits)}
      ${tabLink('Files changed', `${base}/files`, 'file-diff', tab === 'files', counts.files)}
    </div>
  </nav>`;
}

/**
 * A line-review comment as shown on the files tab (under its line) and in the conversation;
 * `options.body` is its text as rendered markdown (through the page's `ContentRenderer`).
 */
export function reviewCommentBox(
  comment: ReviewComment,
  author: Account | undefined,
  options: { hunk?: boolean; id: number; body: Html; actions?: Html },
): Html {
  const where = comment.side === 'RIGHT' ? `line ${comment.line}` : `old line ${comment.oldLine}`;
  return html`<div class="Box Box--condensed my-2 kiln-comment" id="comment-${options.id}">
    <div class="Box-header f6 d-flex flex-items-center kiln-gap">
      <strong>${author?.handle ?? 'someone'}</strong>
      <span class="color-fg-muted flex-auto">commented on <span class="text-mono">${comment.path}</span> ${where} ${relativeTime(comment.createdAt)}</span>
      ${options.actions ?? null}
    </div>
    ${options.hunk ? html`<pre class="kiln-pre f6 m-0 p-2 border-bottom">${comment.diffHunk.split('\n').slice(-4).join('\n')}</pre>` : null}
    <div class="Box-body markdown-body kiln-comment-body">${options.body}</div>
  </div>`;
}
