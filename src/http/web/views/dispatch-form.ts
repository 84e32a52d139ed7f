import type { DispatchInput } from '../../../domain/ci/workflow/triggers.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import type { PageContext } from '../layout.ts';
import { repoUrl } from '../paths.ts';

/** A workflow that can be started by hand, as the Actions page offers it. */
export type DispatchableWorkflow = {
  readonly file: string;
  readonly branch: string;
  readonly inputs: readonly DispatchInput[];
};

/** `/repos/{owner}/{name}/actions/workflows/{file}/dispatch`, where a run-workflow form posts. */
export function dispatchUrl(repo: Repository, file: string): string {
  return `${repoUrl(repo)}/actions/workflows/${encodeURIComponent(file)}/dispatch`;
}

/** Form field of an input: prefixed, so an input named like `ref` or `_csrf` cannot clash. */
export function inputField(name: string): string {
  return `input.${name}`;
}

function dispatchForm(context: PageContext, repo: Repository, workflow: DispatchableWorkflow) {
  const fields = workflow.inputs.map(
    (input) => html`<div class="form-group">
      <div class="form-group-header"><label for="${workflow.file}-${input.name}">${input.name}${input.required ? ' *' : ''}</label></div>
      <div class="form-group-body"><input class="form-control input-sm" id="${workflow.file}-${input.name}" name="${inputField(input.name)}" value="${input.default ?? ''}"${input.required ? ' required' : ''}></div>
    </div>`,
  );
  return html`<details class="Box-row">
    <summary><code>${workflow.file}</code></summary>
    <form method="post" action="${dispatchUrl(repo, workflow.file)}" class="mt-2">
      <input type="hidden" name="_csrf" value="${context.csrf}">
      <div class="form-group">
        <div class="form-group-header"><label for="${workflow.file}-ref">Branch</label></div>
        <div class="form-group-body"><input class="form-control input-sm" id="${workflow.file}-ref" name="ref" value="${workflow.branch}" required></div>
      </div>
      ${fields}
      <button class="btn btn-sm btn-primary" type="submit">${icon('play')} Run workflow</button>
    </form>
  </details>`;
}

/** The "Run workflow" box: one form per workflow with a `workflow_dispatch` trigger. */
export function dispatchForms(
  context: PageContext,
  repo: Repository,
  workflows: readonly DispatchableWorkflow[],
): Html | null {
  if (workflows.length === 0) return null;
  return html`<section class="Box mb-3" aria-labelledby="run-workflow">
    <div class="Box-header"><h3 class="Box-title" id="run-workflow">Run workflow</h3></div>
    ${workflows.map((workflow) => dispatchForm(context, repo, workflow))}
  </section>`;
}
