import type { Readable } from 'node:stream';
import { Conflict, Invalid, NotFound, TooLarge, Unauthenticated } from '../../errors.ts';
import type { TaskGrant } from '../task-token.ts';
import type { ArtifactStore } from './artifact.store.ts';
import type { Artifact, ArtifactBytes, ArtifactFile, ArtifactTask } from './artifact.types.ts';
import { artifactFolder, checkArtifactName, checkItemPath, fileBlobKey } from './artifact-names.ts';
import { artifactExpiry } from './artifact-retention.ts';

/** A chunk of one file, as `Content-Range: bytes start-end/total` describes it. */
export type FileChunk = {
  readonly start: number;
  readonly end: number;
  readonly total: number;
  /** `gzip` when the client sent the file gzip-encoded. */
  readonly encoding: string;
  /** The file's size before gzip (`x-tfs-filelength`), or `total`. */
  readonly originalSize: number;
};

export type ArtifactServiceDeps = {
  readonly store: ArtifactStore;
  readonly bytes: ArtifactBytes;
  /** The grant of a live task token (CiTaskTokens.authenticate). */
  readonly authenticate: (token: string) => Promise<TaskGrant | undefined>;
  /** `service.ci.artifact-retention` and `service.ci.artifact-max-bytes-per-repo`. */
  readonly retentionMs: number;
  readonly maxBytesPerRepo: number;
};

/**
 * Artifacts as a running task reads and writes them through the pipeline protocol.
 *
 * Invariant: a task reaches only the artifacts of its own run. Every call starts from the task
 * token (valid only while the task runs) and the run named in the URL must be the task's; an
 * artifact id from a URL is then checked to belong to that run, so a token of one run, of one
 * repository, can neither write nor read another's artifacts by guessing ids.
 */
export class PipelineArtifactService {
  readonly #deps: ArtifactServiceDeps;
  /** The folder of bytes the next sweep checks for artifacts no longer recorded. */
  #nextShard = 0;

  constructor(deps: ArtifactServiceDeps) {
    this.#deps = deps;
  }

  /**
   * The running task `token` belongs to, which must be of run `runNumber`.
   * @throws Unauthenticated for a token of no running task; NotFound for another run
   */
  async task(token: string, runNumber: number): Promise<ArtifactTask> {
    const grant = await this.#deps.authenticate(token);
    const task = grant && (await this.#deps.store.findRunningTask(grant.taskId));
    if (task === undefined) throw new Unauthenticated('a running task’s token is required');
    if (task.runNumber !== runNumber) throw new NotFound('workflow run not found');
    return task;
  }

  /** Creates the artifact `name` of the task's run, or returns the one already made. */
  async createContainer(task: ArtifactTask, name: unknown, retentionDays: unknown) {
    const checked = checkArtifactName(name);
    const now = Date.now();
    const expiresAt = artifactExpiry(now, retentionDays, this.#deps.retentionMs);
    const made = await this.#deps.store.create({
      task,
      name: checked,
      protocol: 'pipeline',
      createdAt: new Date(now),
      expiresAt,
    });
    const artifact = made ?? (await this.#deps.store.findByName(task.runId, checked));
    if (artifact === undefined) throw new Conflict('artifact was removed while being made');
    if (artifact.protocol !== 'pipeline') {
      throw new Conflict(`artifact ${checked} was uploaded with another protocol`);
    }
    return artifact;
  }

  /** An artifact of the task's run. @throws NotFound */
  async #own(task: ArtifactTask, artifactId: number): Promise<Artifact> {
    const artifact = await this.#deps.store.findById(artifactId);
    if (artifact === undefined || artifact.runId !== task.runId) {
      throw new NotFound('artifact not found');
    }
    return artifact;
  }

  /**
   * Writes one chunk of the file `itemPath` of an artifact of the task's run, streaming `body`
   * to its offset. @throws TooLarge past the repository's quota; Invalid for a body that is
   * not the range's length
   */
  async writeChunk(
    task: ArtifactTask,
    artifactId: number,
    itemPath: unknown,
    chunk: FileChunk,
    body: AsyncIterable<Uint8Array>,
  ): Promise<void> {
    const artifact = await this.#own(task, artifactId);
    const path = checkItemPath(artifact.name, itemPath);
    const others = await this.#deps.store.repoBytes(task.repoId, { artifactId, path });
    if (others + chunk.total > this.#deps.maxBytesPerRepo) {
      throw new TooLarge(
        `the repository's artifacts would pass ${this.#deps.maxBytesPerRepo} bytes; delete some or wait for them to expire`,
      );
    }
    await this.#deps.store.putFile(artifactId, {
      path,
      size: chunk.total,
      originalSize: chunk.originalSize,
      encoding: chunk.encoding,
    });
    const length = chunk.end - chunk.start + 1;
    const received = await this.#deps.bytes.writeAt(
      fileBlobKey(artifactId, path),
      chunk.start,
      length,
      body,
    );
    if (received !== length) {
      throw new Invalid(
        `body of ${received > length ? 'more' : received} bytes for a range of ${length}`,
      );
    }
  }

  /** Marks the task's artifact `name` complete. @throws NotFound */
  async finalize(task: ArtifactTask, name: unknown): Promise<Artifact> {
    const artifact = await this.#deps.store.findByName(task.runId, checkArtifactName(name));
    if (artifact === undefined) throw new NotFound('artifact not found');
    await this.#deps.store.confirm(artifact.id);
    return (await this.#deps.store.findById(artifact.id)) ?? artifact;
  }

  /** The finished artifacts of the task's run. */
  list(task: ArtifactTask): Promise<Artifact[]> {
    return this.#deps.store.listByRun(task.runId);
  }

  /** The files of an artifact of the task's run. */
  async items(
    task: ArtifactTask,
    artifactId: number,
  ): Promise<{ artifact: Artifact; files: ArtifactFile[] }> {
    const artifact = await this.#own(task, artifactId);
    return { artifact, files: await this.#deps.store.listFiles(artifactId) };
  }

  /** One file of an artifact of the task's run, and a stream of its stored bytes. */
  async openFile(
    task: ArtifactTask,
    artifactId: number,
    path: string,
  ): Promise<{ file: ArtifactFile; stream: Readable }> {
    await this.#own(task, artifactId);
    const file = await this.#deps.store.findFile(artifactId, path);
    if (file === undefined) throw new NotFound('artifact file not found');
    return { file, stream: this.#deps.bytes.read(fileBlobKey(artifactId, path)) };
  }

  /**
   * Removes up to `batch` expired artifacts, their bytes first, and the bytes of one folder's
   * artifacts that are no longer recorded; how many expired.
   */
  async expire(now = Date.now(), batch = 200): Promise<number> {
    const ids = await this.#deps.store.listExpired(now, batch);
    for (const id of ids) {
      await this.#deps.bytes.remove(artifactFolder(id));
      await this.#deps.store.delete(id);
    }
    await this.#sweepShard();
    return ids.length;
  }

  /**
   * Removes, in one of the 256 folders per call, the bytes of artifacts no longer recorded: a
   * deleted repository or run takes its artifacts' rows with it, and their bytes are found here
   * on a later sweep. A folder exists only once its row does, so none being written is taken.
   */
  async #sweepShard(): Promise<void> {
    const shard = this.#nextShard;
    this.#nextShard = (shard + 1) % 256;
    const [folder = ''] = artifactFolder(shard);
    const names = await this.#deps.bytes.list([folder]);
    const ids = names.filter((name) => /^\d{1,15}$/.test(name)).map(Number);
    for (let start = 0; start < ids.length; start += 500) {
      const slice = ids.slice(start, start + 500);
      const kept = await this.#deps.store.existing(slice);
      for (const id of slice) if (!kept.has(id)) await this.#deps.bytes.remove(artifactFolder(id));
    }
  }
}
