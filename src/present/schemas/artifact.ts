import type { Static } from 'typebox';
import { Type } from './type.ts';

/** Gitea's `ActionArtifact` (GitHub's artifact, the fields Gitea serves). */
export const ApiActionArtifactSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  size_in_bytes: Type.Integer(),
  url: Type.String(),
  archive_download_url: Type.String(),
  expired: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
  expires_at: Type.String(),
  workflow_run: Type.Object({
    id: Type.Integer(),
    repository_id: Type.Integer(),
    head_sha: Type.String(),
  }),
});
export type ApiActionArtifact = Static<typeof ApiActionArtifactSchema>;

/** Gitea's `ActionArtifactsResponse`. */
export const ApiActionArtifactsResponseSchema = Type.Object({
  artifacts: Type.Array(ApiActionArtifactSchema),
  total_count: Type.Integer(),
});
