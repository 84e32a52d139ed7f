import type { Comparison } from '../../../domain/pulls/compare.service.ts';
import type { RecentBranch } from '../../../domain/pulls/pull-suggestions.service.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import type { DiffFile } from '../../../git/diff.ts';
import { field } from '../forms.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import { compareUrl, repoUrl, srcUrl } from '../paths.ts';
import { commitList } from './commit-list.ts';
import { diffFileList, diffFiles, loadDiffHref, type PreparedDiff } from './diff.ts';
import { pullUrl } from './pull.ts';
import { relativeTime } from './time.ts';
import { commitTitle } from './tree.ts';

/** What the new-pull form holds, as typed or as prefilled. */
export type NewPullValues = { readonly title: string; readonly body: string };

/** The title and description a new-pull form posted, cut to what the service could take. */
export function postedPullText(body: unknown): NewPullValues {
  return { title: field(body, 'title', 300), body: field(body, 'body', 1_048_576) };
}

/** A title for a new pull: the subject of its only commit, else the head branch's name. */
export function suggestedTitle(comparison: Comparison): string {
  const { outcome, headBranch } = comparison;
  const only = outcome.kind === 'compared' && outcome.commits.length === 1 && outcome.commits[0];
  return only ? commitTitle(only.message) : headBranch;
}

const fullName = (repo: Repository) => `${repo.owner.handle}/${repo.name}`;

/**
 * The three pickers, one plain GET form: base branch, head repository, head branch. Without
 * JavaScript a new head repository is chosen first and its branches are offered on the page
 * that answers.
 */
function pickers(comparison: Comparison): Html {
  const { base, baseBranch, baseBranches, heads, head, headBranch, headBranches } = comparison;
  const options = (names: readonly string[], selected: string) =>
    names.map(
      (name) =>
        html`<option value="${name}" ${name === selected ? html`selected` : null}>${name}</option>`,
    );
  const headRepos = heads.map(
    (repo) =>
      html`<option value="${fullName(repo)}" ${repo.id === head.id ? html`selected` : null}>${fullName(repo)}</option>`,
  );
  const select = (id: string, label: string, name: string, choices: Html[]) =>
    html`<div class="form-group m-0"><div class="form-group-header"><label for="${id}">${label}</label></div>
      <div class="form-group-body"><select class="form-select" id="${id}" name="${name}">${choices}</select></div></div>`;
  return html`<form method="get" action="${repoUrl(base.repo)}/compare" class="Box p-3 mb-3 d-flex flex-wrap kiln-gap flex-items-end" aria-label="Branches to compare">
    ${select('compare-base', 'Base', 'base', options(baseBranches, baseBranch))}
    <span class="color-fg-muted mb-2">${icon('arrow-left')}</span>
    ${select('compare-head-repo', 'Head repository', 'head_repo', headRepos)}
    ${select('compare-head', 'Compare', 'head', options(headBranches, headBranch))}
    <button class="btn" type="submit">Compare</button>
  </form>`;
}

function newPullForm(
  context: PageContext,
  action: string,
  values: NewPullValues,
  error: string | undefined,
): Html {
  return html`<h2 class="h3 mb-2">Open a pull request</h2>
    ${error ? html`<div class="flash flash-error mb-3" role="alert">${error}</div>` : null}
    <form method="post" action="${action}" class="Box p-3 mb-3">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="form-group"><div class="form-group-header"><label for="pull-title">Title</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="pull-title" name="title" required maxlength="255" value="${values.title}"></div></div>
      <div class="form-group"><div class="form-group-header"><label for="pull-body">Description</label></div>
        <div class="form-group-body"><textarea class="form-control width-full" id="pull-body" name="body" rows="6">${values.body}</textarea></div></div>
      <button class="btn btn-primary" type="submit">Create pull request</button>
    </form>`;
}

const notice = (text: Html | string) =>
  html`<div class="blankslate Box mb-3"><p class="m-0">${text}</p></div>`;

/**
 * The compare page's content: the pickers, then what the comparison found; for a head with
 * commits, the form that opens a pull (or the open pull, or a sign-in link), the commits and
 * the diff.
 */
export function comparePage(
  context: PageContext,
  comparison: Comparison,
  form: {
    readonly signedIn: boolean;
    readonly values: NewPullValues;
    readonly error?: string;
    /** The page shows one file's diff (its "load diff" link). */
    readonly onlyFiles?: boolean;
    /** The comparison's diff, built (`prepareDiff`) when there is one. */
    readonly prepared?: PreparedDiff;
  },
): Html {
  const { base, baseBranch, head, headBranch, headRef, outcome } = comparison;
  const here = compareUrl(base.repo, baseBranch, headRef);
  const top = pickers(comparison);
  switch (outcome.kind) {
    case 'missing-branch': {
      const repo = outcome.side === 'base' ? base.repo : head;
      return html`${top}${notice(html`There is no branch <span class="branch-name">${outcome.branch}</span> in ${fullName(repo)}. Choose another one above.`)}`;
    }
    case 'hidden-head':
      return html`${top}${notice('A private repository cannot be the head of a pull request into a public one.')}`;
    case 'same':
      return html`${top}${notice('Choose two different branches to compare.')}`;
  }
  const { commits, diff, open } = outcome;
  if (commits.length === 0) {
    return html`${top}${notice(html`There isn’t anything to compare: <span class="branch-name">${baseBranch}</span> already has every commit of <span class="branch-name">${headRef}</span>.`)}`;
  }
  const action = open
    ? html`<div class="flash mb-3" role="status">${icon('git-pull-request')} A pull request for these branches is already open: <a href="${pullUrl(base.repo, open.number)}">#${open.number} ${open.title}</a></div>`
    : form.signedIn
      ? newPullForm(context, here, form.values, form.error)
      : html`<p class="mb-3"><a href="/login?redirect=${encodeURIComponent(here)}">Sign in</a> to open a pull request.</p>`;
  const view = (file: DiffFile) =>
    file.newPath && file.status !== 'deleted' ? srcUrl(head, headBranch, file.newPath) : undefined;
  return html`${top}${action}
    <h3 class="h4 mb-2">${commits.length} ${commits.length === 1 ? 'commit' : 'commits'}</h3>
    ${commitList(head, [...commits].reverse())}
    <h3 class="h4 my-2">Files changed</h3>
    ${diffFileList(diff)}${diffFiles(form.prepared ?? { diff, files: [] }, {
      view,
      ...(form.onlyFiles ? {} : { load: (file: DiffFile) => loadDiffHref(here, file) }),
    })}`;
}

/** Gitea's "You pushed to …" above a repository's code: each recent branch without a pull. */
export function recentPushes(recent: readonly RecentBranch[]): Html | null {
  if (recent.length === 0) return null;
  const rows = recent.map(
    ({ branch, pushedAt, suggestion }) =>
      html`<div class="flash flash-warn mb-2 d-flex flex-items-center flex-wrap kiln-gap" role="status">
        <span class="flex-auto">${icon('git-branch')} You pushed to <span class="branch-name">${branch}</span> ${relativeTime(pushedAt)}</span>
        <a class="btn btn-sm btn-primary" href="${compareUrl(suggestion.base, suggestion.baseBranch, suggestion.headRef)}">Compare &amp; pull request</a>
      </div>`,
  );
  return html`<section aria-label="Recent pushes" class="mb-3">${rows}</section>`;
}
