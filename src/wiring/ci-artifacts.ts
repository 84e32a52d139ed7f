import { join } from 'node:path';
import { ArtifactStore } from '../domain/ci/artifacts/artifact.store.ts';
import { ArtifactQueryService } from '../domain/ci/artifacts/artifact-query.service.ts';
import { PipelineArtifactService } from '../domain/ci/artifacts/pipeline-artifact.service.ts';
import { V4ArtifactService } from '../domain/ci/artifacts/v4-artifact.service.ts';
import { CiCacheService } from '../domain/ci/cache/cache.service.ts';
import { CacheStore } from '../domain/ci/cache/cache.store.ts';
import type { CiStores } from '../domain/ci/ci-stores.ts';
import type { RunQueryService } from '../domain/ci/run-query.service.ts';
import type { RuntimeTokens } from '../domain/ci/runtime-token.ts';
import { TaskTokenStore } from '../domain/ci/task-token.store.ts';
import { CiTaskTokens } from '../domain/ci/task-token.ts';
import { isUser } from '../domain/users/user.types.ts';
import { BlobDirectory } from '../storage/artifact-blob-files.ts';
import { CacheBlobFiles } from '../storage/cache-blob-files.ts';
import type { CiParts } from './ci.ts';

export type CiArtifactParts = Pick<
  CiParts,
  'config' | 'database' | 'dataDir' | 'users' | 'repos'
> & {
  readonly stores: CiStores;
  readonly queries: RunQueryService;
  readonly runtimeTokens: RuntimeTokens;
};

/**
 * What a running job reaches with its token: the token itself (`GITHUB_TOKEN` and the runtime
 * token), artifacts (both protocols, and their listing) and caches.
 */
export function buildCiArtifacts(parts: CiArtifactParts) {
  const { config, database, users, repos, runtimeTokens } = parts;
  const { db } = database;
  const taskTokens = new CiTaskTokens(new TaskTokenStore(db), {
    runtime: runtimeTokens,
    // The most the run's actor may do on the repository now: the token is held below it.
    actorBound: async (actorId, repoId) => {
      const [actor, repo] = await Promise.all([users.findById(actorId), repos.findById(repoId)]);
      if (actor !== undefined && !isUser(actor)) return undefined;
      return actor === undefined || repo === undefined ? 'none' : repos.accessOf(actor, repo);
    },
  });
  // Artifacts' bytes sit beside the repositories, in the data directory replicas share.
  const store = new ArtifactStore(db);
  const bytes = new BlobDirectory(join(parts.dataDir, 'artifacts'));
  const authenticate = (token: string) => taskTokens.authenticateRuntime(token);
  const limits = {
    retentionMs: config.ci.artifactRetentionMs,
    maxBytesPerRepo: config.ci.artifactMaxBytesPerRepo,
  };
  return {
    ciTaskTokens: taskTokens,
    ciCaches: new CiCacheService({
      store: new CacheStore(db),
      blobs: new CacheBlobFiles(join(parts.dataDir, 'ci-caches')),
      repos,
      sizeLimit: config.ci.cacheSizeBytes,
    }),
    ciArtifacts: new PipelineArtifactService({ store, bytes, authenticate, ...limits }),
    ciArtifactsV4: new V4ArtifactService({
      store,
      bytes,
      authenticate,
      signer: runtimeTokens,
      ...limits,
    }),
    ciArtifactQueries: new ArtifactQueryService({
      store,
      bytes,
      repos,
      runs: parts.queries,
      runRows: parts.stores.runs,
    }),
  };
}
