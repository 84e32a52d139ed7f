import type {
  CollaboratorPermission,
  ProtectedBranchRecord,
  Repository,
} from '../../../domain/repos/repo.types.ts';
import type { User } from '../../../domain/users/user.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import { accountUrl, repoUrl } from '../paths.ts';

export type RepoSettingsData = {
  readonly repo: Repository;
  readonly defaultBranch: string;
  readonly branches: readonly string[];
  readonly collaborators: ReadonlyArray<{ user: User; permission: CollaboratorPermission }>;
  readonly protectedBranches: readonly ProtectedBranchRecord[];
  /** Whether federation is on (its blocks page exists only then). */
  readonly federation?: boolean;
};

const PERMISSIONS: readonly CollaboratorPermission[] = ['read', 'write', 'admin'];

function csrfField(context: PageContext): Html {
  return html`<input type="hidden" name="_csrf" value="${context.csrf}">`;
}

function general(context: PageContext, data: RepoSettingsData, action: string): Html {
  const { repo } = data;
  const branchField =
    data.branches.length > 0
      ? html`<select class="form-select" id="default-branch" name="default_branch">${data.branches.map(
          (branch) =>
            html`<option value="${branch}" ${branch === data.defaultBranch ? html`selected` : null}>${branch}</option>`,
        )}</select>`
      : html`<input class="form-control" id="default-branch" name="default_branch" value="${data.defaultBranch}" maxlength="255">`;
  return html`<section class="mb-5" aria-labelledby="general">
    <h2 class="h3 pb-2 mb-3 border-bottom" id="general">General</h2>
    <form method="post" action="${action}">
      ${csrfField(context)}
      <div class="form-group">
        <div class="form-group-header"><label for="description">Description</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="description" name="description" maxlength="2048" value="${repo.description}"></div>
      </div>
      <div class="form-group">
        <div class="form-group-header"><label for="default-branch">Default branch</label></div>
        <div class="form-group-body">${branchField}</div>
      </div>
      <fieldset class="mb-3">
        <legend class="text-bold mb-2">Visibility</legend>
        <div class="form-checkbox my-1"><label><input type="radio" name="visibility" value="public" ${repo.private ? null : html`checked`}> Public</label></div>
        <div class="form-checkbox my-1"><label><input type="radio" name="visibility" value="private" ${repo.private ? html`checked` : null}> Private</label></div>
      </fieldset>
      <button class="btn btn-primary" type="submit">Save changes</button>
    </form>
  </section>`;
}

function collaborators(context: PageContext, data: RepoSettingsData, base: string): Html {
  const rows = data.collaborators.map(
    ({ user, permission }) => html`<li class="Box-row d-flex flex-items-center kiln-gap">
      <img class="avatar" src="/assets/avatar.svg" width="24" height="24" alt="">
      <a class="flex-auto" href="${accountUrl(user.handle)}">${user.handle}</a>
      <span class="Label">${permission}</span>
      <form method="post" action="${base}/collaborators/delete">
        ${csrfField(context)}
        <input type="hidden" name="username" value="${user.handle}">
        <button class="btn btn-sm btn-danger" type="submit" aria-label="Remove ${user.handle}">Remove</button>
      </form>
    </li>`,
  );
  return html`<section class="mb-5" aria-labelledby="collaborators">
    <h2 class="h3 pb-2 mb-3 border-bottom" id="collaborators">Collaborators</h2>
    ${rows.length > 0 ? html`<ul class="Box kiln-list mb-3">${rows}</ul>` : html`<p class="color-fg-muted">No collaborators yet.</p>`}
    <form method="post" action="${base}/collaborators" class="d-flex flex-wrap flex-items-end kiln-gap">
      ${csrfField(context)}
      <div class="form-group my-0"><div class="form-group-header"><label for="collaborator">Username</label></div>
        <div class="form-group-body"><input class="form-control" id="collaborator" name="username" required maxlength="100" autocomplete="off"></div></div>
      <div class="form-group my-0"><div class="form-group-header"><label for="permission">Permission</label></div>
        <div class="form-group-body"><select class="form-select" id="permission" name="permission">${PERMISSIONS.map(
          (permission) =>
            html`<option value="${permission}" ${permission === 'write' ? html`selected` : null}>${permission}</option>`,
        )}</select></div></div>
      <button class="btn" type="submit">Add collaborator</button>
    </form>
  </section>`;
}

function protectedBranches(context: PageContext, data: RepoSettingsData, base: string): Html {
  const rows = data.protectedBranches.map(
    (rule) => html`<li class="Box-row">
      <div class="d-flex flex-items-center kiln-gap">
        ${icon('shield-lock')}<span class="branch-name flex-auto">${rule.branch}</span>
        <form method="post" action="${base}/branches/delete">
          ${csrfField(context)}
          <input type="hidden" name="branch" value="${rule.branch}">
          <button class="btn btn-sm" type="submit" aria-label="Unprotect ${rule.branch}">Unprotect</button>
        </form>
      </div>
      ${requiredChecksForm(context, rule, base)}
    </li>`,
  );
  return html`<section class="mb-5" aria-labelledby="branches">
    <h2 class="h3 pb-2 mb-3 border-bottom" id="branches">Protected branches</h2>
    <p class="color-fg-muted">Protected branches refuse force pushes and deletion, whoever pushes, and can make merges wait for CI.</p>
    ${rows.length > 0 ? html`<ul class="Box kiln-list mb-3">${rows}</ul>` : html`<p class="color-fg-muted">No protected branches.</p>`}
    <form method="post" action="${base}/branches" class="d-flex flex-wrap flex-items-end kiln-gap">
      ${csrfField(context)}
      <div class="form-group my-0"><div class="form-group-header"><label for="protect-branch">Branch</label></div>
        <div class="form-group-body"><input class="form-control" id="protect-branch" name="branch" required maxlength="255" list="branch-names" autocomplete="off"></div></div>
      <datalist id="branch-names">${data.branches.map((branch) => html`<option value="${branch}"></option>`)}</datalist>
      <button class="btn" type="submit">Protect branch</button>
    </form>
  </section>`;
}

/** A protection's required checks: on or off, and their patterns one to a line. */
function requiredChecksForm(context: PageContext, rule: ProtectedBranchRecord, base: string): Html {
  const id = `checks-${encodeURIComponent(rule.branch)}`;
  return html`<details class="mt-2"${rule.enableStatusCheck ? html` open` : null}>
    <summary>Required checks${rule.enableStatusCheck ? html` (${rule.statusCheckContexts.length || 'all'})` : html` (off)`}</summary>
    <form method="post" action="${base}/branches/checks" class="mt-2">
      ${csrfField(context)}
      <input type="hidden" name="branch" value="${rule.branch}">
      <div class="form-checkbox my-0"><label><input type="checkbox" name="enable_status_check" value="on"${rule.enableStatusCheck ? html` checked` : null}> Merging waits until these checks have succeeded</label></div>
      <div class="form-group my-2"><div class="form-group-header"><label for="${id}">Check name patterns, one per line (empty: every check of the head commit)</label></div>
        <div class="form-group-body"><textarea class="form-control width-full" id="${id}" name="status_check_contexts" rows="3" placeholder="CI / test (*)">${rule.statusCheckContexts.join('\n')}</textarea></div></div>
      <button class="btn btn-sm" type="submit">Save required checks</button>
    </form>
  </details>`;
}

function dangerZone(context: PageContext, data: RepoSettingsData, base: string): Html {
  const full = `${data.repo.owner.handle}/${data.repo.name}`;
  return html`<section class="mb-5" aria-labelledby="danger">
    <h2 class="h3 pb-2 mb-3 border-bottom color-fg-danger" id="danger">Danger zone</h2>
    <div class="Box kiln-danger p-3">
      <h3 class="f5">Delete this repository</h3>
      <p>This removes the repository, its history and everything attached to it. It cannot be undone.</p>
      <form method="post" action="${base}/delete">
        ${csrfField(context)}
        <button class="btn btn-danger" type="submit" aria-label="Delete ${full}">Delete this repository</button>
      </form>
    </div>
  </section>`;
}

/** The repository settings page: general, collaborators, protected branches, deletion. */
export function repoSettingsPage(context: PageContext, data: RepoSettingsData): Html {
  const base = `${repoUrl(data.repo)}/settings`;
  return html`<div class="d-md-flex kiln-gap-lg">
    <nav class="SideNav border rounded-2 kiln-sidenav mb-4" aria-label="Settings sections">
      <a class="SideNav-item" href="#general">General</a>
      <a class="SideNav-item" href="#collaborators">Collaborators</a>
      <a class="SideNav-item" href="#branches">Protected branches</a>
      <a class="SideNav-item" href="${base}/hooks">Webhooks</a>
      <a class="SideNav-item" href="${base}/keys">Deploy keys</a>
      <a class="SideNav-item" href="${base}/ci">CI secrets and variables</a>
      ${data.federation ? html`<a class="SideNav-item" href="${base}/federation">Federation blocks</a>` : null}
      <a class="SideNav-item" href="#danger">Danger zone</a>
    </nav>
    <div class="flex-auto min-width-0">
      ${general(context, data, base)}
      ${collaborators(context, data, base)}
      ${protectedBranches(context, data, base)}
      ${dangerZone(context, data, base)}
    </div>
  </div>`;
}
