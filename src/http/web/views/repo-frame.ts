import type { OutgoingPull } from '../../../domain/federation/outgoing-pulls.service.ts';
import type { ProposalNote } from '../../../domain/federation/proposal-notes.ts';
import type { ReviewNoteState } from '../../../domain/federation/pull-notes.ts';
import { mayAdministerRepo } from '../../../domain/repos/repo.policy.ts';
import type { Repository, VisibleRepo } from '../../../domain/repos/repo.types.ts';
import type { Account } from '../../../domain/users/user.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import { accountUrl, repoUrl } from '../paths.ts';

export type RepoTab = 'code' | 'pulls' | 'actions' | 'releases' | 'settings';

/** What the frame of a repository page shows besides the content. */
export type RepoFrame = {
  readonly visible: VisibleRepo;
  /** The repository this one was forked from, when the viewer may see it. */
  readonly parent?: Repository | undefined;
  /** The actor of the repository on another server this one was forked from, if it was. */
  readonly remoteParent?: string | undefined;
  /** The pull requests this fork proposed to that upstream, with where each stands. */
  readonly proposals?: readonly ProposalWithNotes[] | undefined;
  readonly tab: RepoTab;
  /** Accounts the viewer may fork into; empty or absent hides the fork button. */
  readonly forkOwners?: readonly Account[] | undefined;
  /** Federation facts of a public repository, when federation is on. */
  readonly fediverse?: { actorUrl: string; stars: number; followers: number } | undefined;
};

function fediverseLine(frame: RepoFrame): Html | null {
  const facts = frame.fediverse;
  if (!facts) return null;
  return html`<p class="f6 color-fg-muted mb-2 kiln-break">Follow from the fediverse: <code>${facts.actorUrl}</code>
    · ${facts.stars} star${facts.stars === 1 ? '' : 's'} and ${facts.followers} follower${facts.followers === 1 ? '' : 's'} from other servers</p>`;
}

/** "forked from forge.example/ada/kiln", linked to the remote repository. */
function remoteParentLine(context: PageContext, frame: RepoFrame): Html | null {
  const actor = frame.remoteParent;
  if (!actor || !URL.canParse(actor)) return null;
  const url = new URL(actor);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  const label = `${url.host}${url.pathname.replace(/^\/repos\//, '/')}`;
  const { repo, access } = frame.visible;
  // Writers may bring the fork up to its upstream (a fast-forward of the default branch).
  const sync =
    access.level === 'write' || access.level === 'admin'
      ? html`<form method="post" action="${repoUrl(repo)}/sync-fork" class="d-inline ml-2">
          <input type="hidden" name="_csrf" value="${context.csrf}">
          <button class="btn btn-sm" type="submit">${icon('sync')} Sync fork</button>
        </form>${proposeForm(context, repo)}`
      : null;
  return html`<p class="f6 color-fg-muted mb-2">forked from <a href="${url.href}" rel="nofollow">${label}</a>${sync}</p>${proposalList(frame.proposals ?? [])}`;
}

/** A note made upstream, with its body as the renderer made it (sanitised markdown). */
export type RenderedNote = ProposalNote & { readonly bodyHtml: Html | undefined };

/** A proposal to the upstream with the review comments made on it there. */
export type ProposalWithNotes = OutgoingPull & { readonly notes?: readonly RenderedNote[] };

const REVIEW_LABELS: Record<ReviewNoteState, string> = {
  approved: 'approved',
  changes_requested: 'requested changes',
  commented: 'reviewed',
};

/** The review comments made upstream on one proposal: who, where, and what they wrote. */
function noteList(notes: readonly RenderedNote[]): Html | null {
  if (notes.length === 0) return null;
  const row = (note: RenderedNote) => {
    const where = note.path
      ? html` on <code>${note.path}${note.line ? `:${note.line}` : ''}</code>`
      : null;
    const verdict = note.reviewState
      ? html` <span class="Label" data-review-state="${note.reviewState}">${REVIEW_LABELS[note.reviewState]}</span>`
      : null;
    const reply = note.inReplyTo ? ' ml-3' : '';
    return html`<li class="kiln-proposal-note${reply}"><a href="${note.actor}" rel="nofollow">@${note.login}</a>${verdict}${where}:
      <div class="markdown-body kiln-break">${note.bodyHtml ?? note.body}</div></li>`;
  };
  return html`<ul class="ml-3">${notes.map(row)}</ul>`;
}

/** The pull requests proposed to the upstream: each one's title, state and page once open. */
function proposalList(proposals: readonly ProposalWithNotes[]): Html | null {
  if (proposals.length === 0) return null;
  const row = (pull: ProposalWithNotes) => {
    const title = pull.url
      ? html`<a href="${pull.url}" rel="nofollow">${pull.title}</a>`
      : html`${pull.title}`;
    const why = pull.reason ? html`: ${pull.reason}` : null;
    return html`<li>${title} <span class="Label">${pull.state}</span>${why}${noteList(pull.notes ?? [])}</li>`;
  };
  return html`<div class="f6 color-fg-muted mb-2 kiln-proposals">Proposed to the upstream:
    <ul class="ml-3">${proposals.map(row)}</ul></div>`;
}

/** "Propose to upstream": a branch of the fork offered to its upstream as a pull request. */
function proposeForm(context: PageContext, repo: Repository): Html {
  return html`<details class="d-inline-block ml-2 kiln-propose">
    <summary class="btn btn-sm">${icon('git-pull-request')} Propose to upstream</summary>
    <form method="post" action="${repoUrl(repo)}/propose-upstream" class="Box p-2 mt-1">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <label class="d-block">Branch of this fork <input class="form-control input-sm" name="head" required maxlength="255"></label>
      <label class="d-block">into the upstream's <input class="form-control input-sm" name="base" value="main" required maxlength="255"></label>
      <label class="d-block">Title <input class="form-control input-sm" name="title" required maxlength="255"></label>
      <label class="d-block">Description <textarea class="form-control input-sm" name="body"></textarea></label>
      <button class="btn btn-sm btn-primary mt-1" type="submit">Propose</button>
    </form>
  </details>`;
}

function visibilityLabel(repo: Repository): Html {
  return repo.private
    ? html`<span class="Label Label--attention ml-2 v-align-middle">Private</span>`
    : html`<span class="Label ml-2 v-align-middle">Public</span>`;
}

function forkButton(context: PageContext, frame: RepoFrame): Html | null {
  const owners = frame.forkOwners ?? [];
  const repo = frame.visible.repo;
  if (owners.length === 0) return null;
  const action = `${repoUrl(repo)}/fork`;
  const [only] = owners;
  if (owners.length === 1 && only) {
    return html`<form method="post" action="${action}">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <input type="hidden" name="owner" value="${only.handle}">
      <button class="btn btn-sm" type="submit" title="Fork into ${only.handle}">${icon('repo-forked')} Fork</button>
    </form>`;
  }
  const choices = owners.map(
    (owner) =>
      html`<button class="dropdown-item btn-link" type="submit" name="owner" value="${owner.handle}" role="menuitem">${owner.handle}</button>`,
  );
  return html`<details class="details-reset details-overlay position-relative">
    <summary class="btn btn-sm" aria-haspopup="menu">${icon('repo-forked')} Fork <span class="dropdown-caret"></span></summary>
    <form method="post" action="${action}" class="dropdown-menu dropdown-menu-sw" role="menu" aria-label="Fork into">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="dropdown-header">Fork into</div>
      ${choices}
    </form>
  </details>`;
}

function tab(name: string, href: string, glyph: string, current: boolean): Html {
  return html`<a class="UnderlineNav-item" href="${href}" ${current ? html`aria-current="page"` : null}>${icon(glyph)}<span>${name}</span></a>`;
}

/** The header of every repository page: owner / name, visibility, fork parent, tabs. */
export function repoFrame(context: PageContext, frame: RepoFrame, content: Html): Html {
  const { repo, access } = frame.visible;
  const base = repoUrl(repo);
  return html`<div class="kiln-repohead mb-4">
    <div class="d-flex flex-wrap flex-items-center mb-2">
      <h1 class="h3 text-normal flex-auto mr-3 kiln-break">
        <span class="color-fg-muted">${icon('repo')}</span>
        <a href="${accountUrl(repo.owner.handle)}">${repo.owner.handle}</a>
        <span class="color-fg-muted">/</span>
        <strong><a href="${base}">${repo.name}</a></strong>${visibilityLabel(repo)}
      </h1>
      ${forkButton(context, frame)}
    </div>
    ${
      frame.parent
        ? html`<p class="f6 color-fg-muted mb-2">forked from <a href="${repoUrl(frame.parent)}">${frame.parent.owner.handle}/${frame.parent.name}</a></p>`
        : remoteParentLine(context, frame)
    }
    ${fediverseLine(frame)}
    <nav class="UnderlineNav" aria-label="Repository">
      <div class="UnderlineNav-body">
        ${tab('Code', base, 'code', frame.tab === 'code')}
        ${tab('Pull requests', `${base}/pulls`, 'git-pull-request', frame.tab === 'pulls')}
        ${tab('Actions', `${base}/actions`, 'play', frame.tab === 'actions')}
        ${tab('Releases', `${base}/releases`, 'tag', frame.tab === 'releases')}
        ${mayAdministerRepo(access) ? tab('Settings', `${base}/settings`, 'gear', frame.tab === 'settings') : null}
      </div>
    </nav>
  </div>
  ${content}`;
}
