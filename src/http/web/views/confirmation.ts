import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';

/** The field that says a destructive form was confirmed; see `http/web/confirmation.ts`. */
export const CONFIRM_FIELD = 'confirm';

/** What a confirmation page says and where its form goes. */
export type Confirmation = {
  /** The question, as the page's heading: "Delete this comment?" */
  readonly title: string;
  /** What will happen when confirmed, in a sentence or two. */
  readonly consequence: string;
  /** Where the confirmed form posts: the same address as the first step. */
  readonly action: string;
  /** The confirm button's label: "Delete comment". */
  readonly button: string;
  /** Where Cancel goes back to. */
  readonly cancel: string;
  /** Further fields the action needs, carried as hidden inputs. */
  readonly fields?: Readonly<Record<string, string>>;
  /** When set, the person must type this text (a repository's full name) to confirm. */
  readonly typeToConfirm?: string;
  /** Why the last attempt was refused (the typed name did not match). */
  readonly error?: string;
};

/** The second step of a destructive form: the question, what happens, and its own form. */
export function confirmationPage(context: PageContext, confirmation: Confirmation): Html {
  const hidden = Object.entries(confirmation.fields ?? {}).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  const typed = confirmation.typeToConfirm;
  return html`<div class="kiln-medium">
    <h1 class="h2 mb-3">${confirmation.title}</h1>
    ${confirmation.error ? html`<div class="flash flash-error mb-3" role="alert">${confirmation.error}</div>` : null}
    <p class="mb-3">${confirmation.consequence}</p>
    <form method="post" action="${confirmation.action}" class="Box p-3">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      ${hidden}
      ${
        typed
          ? html`<div class="form-group mt-0"><div class="form-group-header"><label for="confirm-name">Type <strong>${typed}</strong> to confirm</label></div>
        <div class="form-group-body"><input class="form-control" id="confirm-name" name="${CONFIRM_FIELD}" required autocomplete="off" spellcheck="false"></div></div>`
          : html`<input type="hidden" name="${CONFIRM_FIELD}" value="yes">`
      }
      <div class="d-flex flex-items-center kiln-gap">
        <button class="btn btn-danger" type="submit">${confirmation.button}</button>
        <a class="btn" href="${confirmation.cancel}">Cancel</a>
      </div>
    </form>
  </div>`;
}
