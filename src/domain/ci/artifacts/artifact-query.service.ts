import { createGunzip } from 'node:zlib';
import { writeZip } from '../../../lib/zip-writer.ts';
import { NotFound } from '../../errors.ts';
import type { RepoService } from '../../repos/repo.service.ts';
import type { Repository } from '../../repos/repo.types.ts';
import type { User } from '../../users/user.types.ts';
import type { WorkflowRun } from '../ci.types.ts';
import type { RunQueryService } from '../run-query.service.ts';
import type { WorkflowRunStore } from '../workflow-run.store.ts';
import type { ArtifactStore } from './artifact.store.ts';
import type { Artifact, ArtifactBytes } from './artifact.types.ts';
import { artifactFolder, fileBlobKey } from './artifact-names.ts';

/** An artifact with the run it belongs to, as REST and pages show it. */
export type ArtifactView = {
  readonly artifact: Artifact;
  readonly runNumber: number;
  readonly sha: string;
};

/**
 * Artifacts as people see them: listed by repository or run, fetched as a zip, deleted. Reading
 * follows the repository (private ones are 404 to outsiders, through `RepoService.get`);
 * deleting needs write access. The zip is written as it is read: pipeline-protocol files are
 * inflated on zlib's thread pool on their way in, and nothing is held whole.
 */
export class ArtifactQueryService {
  readonly #store: ArtifactStore;
  readonly #bytes: ArtifactBytes;
  readonly #repos: RepoService;
  readonly #runs: RunQueryService;
  readonly #runRows: Pick<WorkflowRunStore, 'findById'>;

  constructor(deps: {
    store: ArtifactStore;
    bytes: ArtifactBytes;
    repos: RepoService;
    runs: RunQueryService;
    runRows: Pick<WorkflowRunStore, 'findById'>;
  }) {
    this.#store = deps.store;
    this.#bytes = deps.bytes;
    this.#repos = deps.repos;
    this.#runs = deps.runs;
    this.#runRows = deps.runRows;
  }

  /** A page of the repository's artifacts, newest first; `name` keeps one name. */
  async listForRepo(
    viewer: User | undefined,
    owner: string,
    name: string,
    page: { limit: number; offset: number },
    artifactName?: string,
  ): Promise<{ repo: Repository; artifacts: ArtifactView[]; total: number }> {
    const { repo } = await this.#repos.get(viewer, owner, name);
    const listed = await this.#store.listByRepo(repo.id, page, artifactName);
    return { repo, artifacts: await this.#views(listed.artifacts), total: listed.total };
  }

  /** The artifacts of run `number`. @throws NotFound */
  async listForRun(viewer: User | undefined, owner: string, name: string, number: number) {
    const { repo, run } = await this.#runs.getRun(viewer, owner, name, number);
    return { repo, run, artifacts: await this.ofRun(run) };
  }

  /** The finished artifacts of a run the caller has already found visible. */
  async ofRun(run: WorkflowRun): Promise<ArtifactView[]> {
    const artifacts = await this.#store.listByRun(run.id);
    return artifacts.map((artifact) => ({ artifact, runNumber: run.number, sha: run.sha }));
  }

  /** One finished artifact of the repository. @throws NotFound */
  async get(viewer: User | undefined, owner: string, name: string, id: number) {
    const { repo } = await this.#repos.get(viewer, owner, name);
    const artifact = await this.#store.findById(id);
    if (artifact === undefined || artifact.repoId !== repo.id || artifact.state !== 'confirmed') {
      throw new NotFound('artifact not found');
    }
    const [view] = await this.#views([artifact]);
    if (view === undefined) throw new NotFound('artifact not found');
    return { repo, view };
  }

  /** Deletes an artifact and its bytes. @throws NotFound; Forbidden without write access */
  async delete(user: User, owner: string, name: string, id: number): Promise<void> {
    await this.#repos.require(user, owner, name, 'write');
    const { view } = await this.get(user, owner, name, id);
    await this.#bytes.remove(artifactFolder(view.artifact.id));
    await this.#store.delete(view.artifact.id);
  }

  /**
   * The artifact as a zip: a v4 artifact is the zip its client uploaded; a pipeline one is
   * zipped from its files now. @throws NotFound, for an expired one too
   */
  async zip(viewer: User | undefined, owner: string, name: string, id: number) {
    const { view } = await this.get(viewer, owner, name, id);
    const { artifact } = view;
    if (artifact.expiresAt.getTime() <= Date.now()) throw new NotFound('artifact has expired');
    const files = await this.#store.listFiles(artifact.id);
    if (artifact.protocol === 'v4') {
      // The zip its client uploaded, in the parts its blocks were committed as.
      const parts = files.filter((file) => file.path.startsWith('part/'));
      const bytes = this.#bytes;
      async function* blob() {
        for (const part of parts) yield* bytes.read(fileBlobKey(artifact.id, part.path));
      }
      return { view, bytes: blob() };
    }
    const entries = files.map((file) => ({
      // Inside the zip, paths are relative to the artifact, as the client uploaded them.
      name: file.path.slice(artifact.name.length + 1),
      bytes: () => {
        const stored = this.#bytes.read(fileBlobKey(artifact.id, file.path));
        if (file.encoding !== 'gzip') return stored;
        const inflated = createGunzip();
        stored.on('error', (error) => inflated.destroy(error));
        return stored.pipe(inflated);
      },
    }));
    return { view, bytes: writeZip(entries) };
  }

  async #views(artifacts: readonly Artifact[]): Promise<ArtifactView[]> {
    const runs = new Map<string, WorkflowRun | undefined>();
    const views: ArtifactView[] = [];
    for (const artifact of artifacts) {
      if (!runs.has(artifact.runId)) {
        runs.set(artifact.runId, await this.#runRows.findById(artifact.runId));
      }
      const run = runs.get(artifact.runId);
      if (run) views.push({ artifact, runNumber: run.number, sha: run.sha });
    }
    return views;
  }
}
