import type { ArtifactView } from '../domain/ci/artifacts/artifact-query.service.ts';
import type { Repository } from '../domain/repos/repo.types.ts';
import { foldId } from '../lib/ids.ts';
import { rfc3339 } from '../lib/time.ts';
import { repoPathOf } from './branch.ts';
import type { ApiActionArtifact } from './schemas/artifact.ts';

/** `ActionArtifact`: its size is the bytes stored, `expired` as of `now`. */
export function toApiArtifact(
  view: ArtifactView,
  repo: Repository,
  baseUrl: string,
  now = Date.now(),
): ApiActionArtifact {
  const { artifact } = view;
  const url = `${baseUrl}/api/v1/repos/${repoPathOf(repo)}/actions/artifacts/${artifact.id}`;
  return {
    id: artifact.id,
    name: artifact.name,
    size_in_bytes: artifact.size,
    url,
    archive_download_url: `${url}/zip`,
    expired: artifact.expiresAt.getTime() <= now,
    created_at: rfc3339(artifact.createdAt),
    updated_at: rfc3339(artifact.createdAt),
    expires_at: rfc3339(artifact.expiresAt),
    workflow_run: { id: view.runNumber, repository_id: foldId(repo.id), head_sha: view.sha },
  };
}
