import type { SshKey } from '../../../domain/keys/ssh-key.types.ts';
import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';

/** What a keys page shows and where its forms post. */
export type SshKeysView = {
  readonly heading: string;
  readonly intro: string;
  readonly keys: readonly SshKey[];
  /** Where the add form posts; each key's removal posts to `{action}/{id}/delete`. */
  readonly action: string;
  /** Deploy keys ask whether the key may push. */
  readonly deploy: boolean;
  readonly error?: string | undefined;
};

function when(date: Date | null): string {
  return date ? date.toISOString().slice(0, 16).replace('T', ' ') : 'never';
}

function keyRow(key: SshKey, view: SshKeysView, csrf: string): Html {
  const access = view.deploy ? (key.readOnly ? ' · read-only' : ' · read and write') : '';
  return html`<li class="Box-row d-flex flex-items-center">
      <div class="flex-auto min-width-0">
        <strong>${key.title}</strong> <span class="color-fg-muted">${key.keyType}</span>
        <div class="f6 color-fg-muted"><code>${key.fingerprint}</code></div>
        <div class="f6 color-fg-muted">Added ${when(key.createdAt)} · last used ${when(key.lastUsedAt)}${access}</div>
      </div>
      <form method="post" action="${view.action}/${key.id}/delete">
        <input type="hidden" name="_csrf" value="${csrf}">
        <button class="btn btn-sm btn-danger" type="submit" aria-label="Remove ${key.title}">Remove</button>
      </form>
    </li>`;
}

/** A list of SSH keys with the form to add one: a person's keys, or a repository's deploy keys. */
export function sshKeysPage(context: PageContext, view: SshKeysView): Html {
  const rows = view.keys.map((key) => keyRow(key, view, context.csrf));
  return html`<h1 class="h2 mb-3">${view.heading}</h1>
    <p class="color-fg-muted">${view.intro}</p>
    ${view.error ? html`<div class="flash flash-error mb-3" role="alert">${view.error}</div>` : null}
    <div class="Box mb-4">
      ${view.keys.length === 0 ? html`<div class="Box-body color-fg-muted">No keys yet.</div>` : html`<ul>${rows}</ul>`}
    </div>
    <form method="post" action="${view.action}" class="Box p-3">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="form-group mt-0"><div class="form-group-header"><label for="key-title">Title</label></div>
        <div class="form-group-body"><input class="form-control" id="key-title" name="title" required maxlength="255"></div></div>
      <div class="form-group"><div class="form-group-header"><label for="key-text">Key</label></div>
        <div class="form-group-body"><textarea class="form-control input-monospace" id="key-text" name="key" required rows="4" placeholder="ssh-ed25519 AAAA… (the contents of ~/.ssh/id_ed25519.pub)"></textarea></div></div>
      ${view.deploy ? html`<label class="d-block mb-3"><input type="checkbox" name="write" value="yes"> Allow pushes with this key</label>` : null}
      <button class="btn btn-primary" type="submit">Add key</button>
    </form>`;
}
