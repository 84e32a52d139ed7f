import { Conflict, Invalid, NotFound, TooLarge, Unauthenticated } from '../../errors.ts';
import type { RuntimeTokens } from '../runtime-token.ts';
import type { TaskGrant } from '../task-token.ts';
import type { ArtifactStore } from './artifact.store.ts';
import type { Artifact, ArtifactBytes, ArtifactTask } from './artifact.types.ts';
import { artifactFolder, checkArtifactName, fileBlobKey } from './artifact-names.ts';

/** The ids every v4 request names: the run and job of the token's `scp`. */
export type BackendIds = { readonly runBackendId: string; readonly jobBackendId: string };

/** What a signed blob URL allows, and its signed query string. */
export type BlobGrant = {
  readonly artifactId: number;
  readonly taskId: number;
  readonly kind: 'upload' | 'download';
};

/** How long a signed blob URL stays valid (and only while its task runs). */
const SIGNED_URL_MS = 60 * 60_000;
/** Azure block ids are base64 of at most 64 bytes. */
const BLOCK_ID = /^[A-Za-z0-9+/=_-]{1,100}$/;
const PART = (index: number) => `part/${String(index).padStart(6, '0')}`;

export type V4ArtifactDeps = {
  readonly store: ArtifactStore;
  readonly bytes: ArtifactBytes;
  readonly authenticate: (token: string) => Promise<TaskGrant | undefined>;
  readonly signer: Pick<RuntimeTokens, 'sign' | 'checkSignature'>;
  readonly retentionMs: number;
  readonly maxBytesPerRepo: number;
};

/**
 * The v4 artifact protocol (`@actions/artifact` 2+): Twirp calls authorised by the runtime token,
 * and signed blob URLs the client's Azure SDK writes blocks to and reads the zip from.
 *
 * Invariant: a task reaches only its own run's artifacts, as with the pipeline protocol: the ids
 * a request names must be its token's run (and, to write, its job), and a signed URL names one
 * artifact and the task it was made for, is valid an hour at most, and only while that task runs.
 */
export class V4ArtifactService {
  readonly #deps: V4ArtifactDeps;

  constructor(deps: V4ArtifactDeps) {
    this.#deps = deps;
  }

  /** The running task of `token`, which must be of the run `ids` names. */
  async task(token: string, ids: BackendIds, writing: boolean): Promise<ArtifactTask> {
    const grant = await this.#deps.authenticate(token);
    const task = grant && (await this.#deps.store.findRunningTask(grant.taskId));
    if (task === undefined) throw new Unauthenticated('a running task’s token is required');
    if (ids.runBackendId !== task.runId) throw new NotFound('workflow run not found');
    if (writing && ids.jobBackendId !== String(task.taskId)) {
      throw new NotFound('workflow job not found');
    }
    return task;
  }

  /** Starts an artifact; an unfinished one of that name is started again. */
  async create(task: ArtifactTask, name: unknown, expiresAt: unknown): Promise<Artifact> {
    const checked = checkArtifactName(name);
    const now = Date.now();
    const asked = typeof expiresAt === 'string' ? Date.parse(expiresAt) : Number.NaN;
    const longest = now + this.#deps.retentionMs;
    const expiry = Number.isFinite(asked) && asked > now ? Math.min(asked, longest) : longest;
    const existing = await this.#deps.store.findByName(task.runId, checked);
    if (existing?.state === 'confirmed' || (existing && existing.protocol !== 'v4')) {
      throw new Conflict(`an artifact named ${checked} already exists in this run`);
    }
    if (existing) {
      await this.#deps.bytes.remove(artifactFolder(existing.id));
      await this.#deps.store.delete(existing.id);
    }
    const made = await this.#deps.store.create({
      task,
      name: checked,
      protocol: 'v4',
      createdAt: new Date(now),
      expiresAt: new Date(expiry),
    });
    if (made === undefined) throw new Conflict(`an artifact named ${checked} is being made`);
    return made;
  }

  /** The signed query string of a blob URL for `grant`. */
  sign(grant: BlobGrant, now = Date.now()): string {
    const expires = now + SIGNED_URL_MS;
    const sig = this.#deps.signer.sign(
      `${grant.kind}:${grant.artifactId}:${grant.taskId}:${expires}`,
    );
    return `artifact=${grant.artifactId}&task=${grant.taskId}&expires=${expires}&sig=${sig}`;
  }

  /** The artifact a signed URL's query allows `kind` on. @throws Unauthenticated, NotFound */
  async #signed(query: Record<string, string | undefined>, kind: BlobGrant['kind']) {
    const { artifact, task, expires, sig } = query;
    const text = `${kind}:${artifact}:${task}:${expires}`;
    if (sig === undefined || !this.#deps.signer.checkSignature(text, sig)) {
      throw new Unauthenticated('the signature of this URL does not match');
    }
    if (Number(expires) <= Date.now()) throw new Unauthenticated('this URL has expired');
    const running = await this.#deps.store.findRunningTask(Number(task));
    const found = await this.#deps.store.findById(Number(artifact));
    if (running === undefined) throw new Unauthenticated('the task of this URL has ended');
    if (found === undefined || found.runId !== running.runId)
      throw new NotFound('artifact not found');
    return found;
  }

  /**
   * One write of the Azure blob protocol to an artifact: a block (`comp=block`), the block
   * list that orders them (`comp=blocklist`, body given as text), an append (`comp=appendblock`)
   * or the whole blob (no `comp`).
   */
  async writeBlob(
    query: Record<string, string | undefined>,
    length: number,
    body: AsyncIterable<Uint8Array>,
  ): Promise<void> {
    const artifact = await this.#signed(query, 'upload');
    if (artifact.state !== 'uploading') throw new Conflict('artifact is already finalised');
    const comp = query.comp ?? '';
    if (comp === 'block') {
      const blockId = query.blockid ?? '';
      if (!BLOCK_ID.test(blockId)) throw new Invalid('blockid is not a block id');
      await this.#write(artifact, `block:${blockId}`, 0, length, body);
    } else if (comp === 'appendblock') {
      const at = (await this.#deps.store.findFile(artifact.id, PART(0)))?.size ?? 0;
      await this.#write(artifact, PART(0), at, length, body);
    } else if (comp === '') {
      await this.#write(artifact, PART(0), 0, length, body);
    } else {
      throw new Invalid(`comp=${comp} is not supported`);
    }
  }

  /** Orders the staged blocks of `blockIds` into the blob. */
  async commitBlocks(query: Record<string, string | undefined>, blockIds: readonly string[]) {
    const artifact = await this.#signed(query, 'upload');
    if (artifact.state !== 'uploading') throw new Conflict('artifact is already finalised');
    for (const [index, blockId] of blockIds.entries()) {
      const from = `block:${blockId}`;
      if ((await this.#deps.store.findFile(artifact.id, from)) === undefined) {
        throw new Invalid(`block ${blockId} was not uploaded`);
      }
      await this.#deps.bytes.rename(
        fileBlobKey(artifact.id, from),
        fileBlobKey(artifact.id, PART(index)),
      );
      await this.#deps.store.renameFile(artifact.id, from, PART(index));
    }
  }

  async #write(
    artifact: Artifact,
    path: string,
    offset: number,
    length: number,
    body: AsyncIterable<Uint8Array>,
  ): Promise<void> {
    const others = await this.#deps.store.repoBytes(artifact.repoId, {
      artifactId: artifact.id,
      path,
    });
    if (others + offset + length > this.#deps.maxBytesPerRepo) {
      throw new TooLarge(
        `the repository's artifacts would pass ${this.#deps.maxBytesPerRepo} bytes`,
      );
    }
    const size = offset + length;
    await this.#deps.store.putFile(artifact.id, { path, size, originalSize: size, encoding: '' });
    const received = await this.#deps.bytes.writeAt(
      fileBlobKey(artifact.id, path),
      offset,
      length,
      body,
    );
    if (received !== length)
      throw new Invalid(`body of ${received} bytes for a length of ${length}`);
  }

  /** Finishes the task's artifact `name`, whose blob must hold `size` bytes. */
  async finalize(task: ArtifactTask, name: unknown, size: unknown): Promise<Artifact> {
    const artifact = await this.#deps.store.findByName(task.runId, checkArtifactName(name));
    if (artifact === undefined || artifact.protocol !== 'v4')
      throw new NotFound('artifact not found');
    const parts = (await this.#deps.store.listFiles(artifact.id)).filter((f) =>
      f.path.startsWith('part/'),
    );
    const stored = parts.reduce((sum, part) => sum + part.size, 0);
    if (size !== undefined && Number(size) !== stored) {
      throw new Invalid(`artifact holds ${stored} bytes, not ${String(size)}`);
    }
    await this.#deps.store.confirm(artifact.id);
    return (await this.#deps.store.findById(artifact.id)) ?? artifact;
  }

  /** The finished artifacts of the task's run, by name and id when asked. */
  async list(task: ArtifactTask, filter: { name?: string; id?: number }): Promise<Artifact[]> {
    return (await this.#deps.store.listByRun(task.runId)).filter(
      (a) =>
        (filter.name === undefined || a.name === filter.name) &&
        (filter.id === undefined || a.id === filter.id),
    );
  }

  /** A finished artifact of the task's run, by name. @throws NotFound */
  async byName(task: ArtifactTask, name: unknown): Promise<Artifact> {
    const artifact = await this.#deps.store.findByName(task.runId, checkArtifactName(name));
    if (artifact === undefined || artifact.state !== 'confirmed')
      throw new NotFound('artifact not found');
    return artifact;
  }

  /** Deletes the task's run's artifact `name`. */
  async delete(task: ArtifactTask, name: unknown): Promise<Artifact> {
    const artifact = await this.byName(task, name);
    await this.#deps.bytes.remove(artifactFolder(artifact.id));
    await this.#deps.store.delete(artifact.id);
    return artifact;
  }

  /**
   * The blob a signed download URL names: its size, and `copy`, which hands its parts in order
   * to a sink in reused buffers (ArtifactBytes.copy).
   */
  async readBlob(query: Record<string, string | undefined>): Promise<{
    size: number;
    copy: (sink: (bytes: Buffer) => Promise<void>) => Promise<void>;
  }> {
    const artifact = await this.#signed(query, 'download');
    const parts = (await this.#deps.store.listFiles(artifact.id)).filter((f) =>
      f.path.startsWith('part/'),
    );
    const size = parts.reduce((sum, part) => sum + part.size, 0);
    const keys = parts.map((part) => fileBlobKey(artifact.id, part.path));
    return { size, copy: (sink) => this.#deps.bytes.copy(keys, sink) };
  }
}
