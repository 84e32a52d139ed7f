import { type Html, html } from '../html.ts';
import type { PageContext } from '../layout.ts';

/** The fields of the release form, as typed (re-shown after a preview or a refusal). */
export type ReleaseFormValues = {
  readonly tag: string;
  /** The branch a new tag is made from; ignored when the tag exists. */
  readonly target: string;
  readonly title: string;
  readonly body: string;
  readonly prerelease: boolean;
};

/** What the form is for, and what it can offer. */
export type ReleaseFormSetup = {
  readonly heading: string;
  readonly action: string;
  readonly submitLabel: string;
  readonly tags: readonly string[];
  readonly branches: readonly string[];
  /** A message shown above the form after a refusal. */
  readonly error?: string | undefined;
  /** The rendered body after "Preview". */
  readonly preview?: Html | undefined;
};

/**
 * Draft or edit a release. Works without JavaScript: the tag is typed or picked from the list of
 * existing tags (a datalist), a new tag is made from the chosen branch, and "Preview" posts the
 * form back to be shown again with the notes rendered.
 */
export function releaseForm(
  context: PageContext,
  setup: ReleaseFormSetup,
  values: ReleaseFormValues,
): Html {
  // A release made from a commit keeps it as its target unless another is picked.
  const targets =
    values.target && !setup.branches.includes(values.target)
      ? [values.target, ...setup.branches]
      : setup.branches;
  const branchOptions = targets.map(
    (branch) =>
      html`<option value="${branch}" ${branch === values.target ? html`selected` : null}>${branch}</option>`,
  );
  const preview = setup.preview
    ? html`<section class="Box mb-3" aria-labelledby="release-preview">
        <div class="Box-header"><h3 class="Box-title" id="release-preview">Preview</h3></div>
        <div class="Box-body markdown-body">${setup.preview}</div>
      </section>`
    : null;
  return html`<h2 class="h3 mb-3">${setup.heading}</h2>
    ${setup.error ? html`<div class="flash flash-error mb-3" role="alert">${setup.error}</div>` : null}
    ${preview}
    <form method="post" action="${setup.action}" class="Box p-3">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="d-flex flex-wrap kiln-gap flex-items-end mb-3">
        <div class="form-group m-0 min-width-0"><div class="form-group-header"><label for="release-tag">Tag</label></div>
          <div class="form-group-body"><input class="form-control" id="release-tag" name="tag" list="release-tags" required maxlength="255" value="${values.tag}" placeholder="v1.0.0" autocomplete="off" spellcheck="false"></div></div>
        <datalist id="release-tags">${setup.tags.map((tag) => html`<option value="${tag}"></option>`)}</datalist>
        <div class="form-group m-0"><div class="form-group-header"><label for="release-target">Target branch</label></div>
          <div class="form-group-body"><select class="form-select" id="release-target" name="target">${branchOptions}</select></div></div>
      </div>
      <p class="note mt-n2 mb-3">Pick an existing tag or type a new one; a new tag is made at the tip of the target branch.</p>
      <div class="form-group"><div class="form-group-header"><label for="release-title">Title</label></div>
        <div class="form-group-body"><input class="form-control width-full" id="release-title" name="title" maxlength="255" value="${values.title}" placeholder="the tag name when empty"></div></div>
      <div class="form-group"><div class="form-group-header"><label for="release-body">Release notes</label></div>
        <div class="form-group-body"><textarea class="form-control width-full" id="release-body" name="body" rows="12" placeholder="Markdown">${values.body}</textarea></div></div>
      <div class="form-checkbox"><label><input type="checkbox" name="prerelease" value="on" ${values.prerelease ? html`checked` : null}> This is a pre-release</label>
        <p class="note">Pre-releases are not offered as the latest release.</p></div>
      <div class="d-flex flex-wrap kiln-gap">
        <button class="btn" type="submit" name="preview" value="1">Preview</button>
        <button class="btn btn-primary" type="submit">${setup.submitLabel}</button>
      </div>
    </form>`;
}
