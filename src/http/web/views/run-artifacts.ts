import type { ArtifactView } from '../../../domain/ci/artifacts/artifact-query.service.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';
import { formatBytes } from './blob.ts';
import { runUrl } from './runs-list.ts';

/** `/repos/{owner}/{name}/actions/runs/{number}/artifacts/{id}`: the artifact's zip. */
export function artifactUrl(repo: Repository, view: ArtifactView): string {
  return `${runUrl(repo, view.runNumber)}/artifacts/${view.artifact.id}`;
}

/** The run page's list of artifacts: name, size and a link to download each as a zip. */
export function runArtifacts(repo: Repository, artifacts: readonly ArtifactView[]): Html | null {
  if (artifacts.length === 0) return null;
  const now = Date.now();
  return html`<h3 class="f4 mt-4 mb-2">Artifacts</h3>
    <ul class="Box" aria-label="Artifacts">${artifacts.map((view) => {
      const expired = view.artifact.expiresAt.getTime() <= now;
      return html`<li class="Box-row d-flex flex-items-center kiln-gap" data-artifact>
        ${icon('package')}
        ${
          expired
            ? html`<span class="flex-auto">${view.artifact.name} <span class="color-fg-muted">(expired)</span></span>`
            : html`<a class="flex-auto" href="${artifactUrl(repo, view)}" download>${view.artifact.name}</a>`
        }
        <span class="color-fg-muted f6">${formatBytes(view.artifact.size)}</span>
      </li>`;
    })}</ul>`;
}
