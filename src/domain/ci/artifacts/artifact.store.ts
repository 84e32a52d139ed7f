import type { Kysely, Selectable } from 'kysely';
import type { CiArtifactsTable, Tables } from '../../../db/tables.ts';
import type { Artifact, ArtifactFile, ArtifactTask } from './artifact.types.ts';

/** A new artifact: the task making it, its name, protocol and times. */
type NewArtifact = Pick<Artifact, 'name' | 'protocol' | 'createdAt' | 'expiresAt'> & {
  readonly task: ArtifactTask;
};

function toArtifact(row: Selectable<CiArtifactsTable>): Artifact {
  return {
    id: Number(row.id),
    repoId: row.repo_id,
    runId: row.run_id,
    taskId: Number(row.task_id),
    jobName: row.job_name,
    name: row.name,
    protocol: row.protocol,
    state: row.state,
    size: Number(row.size),
    createdAt: new Date(Number(row.created_at)),
    expiresAt: new Date(Number(row.expires_at)),
  };
}

/** Queries of `ci_artifacts` and `ci_artifact_files`. */
export class ArtifactStore {
  readonly #db: Kysely<Tables>;

  constructor(db: Kysely<Tables>) {
    this.#db = db;
  }

  /** A running task with its run and repository, or undefined. */
  async findRunningTask(taskId: number): Promise<ArtifactTask | undefined> {
    const row = await this.#db
      .selectFrom('ci_tasks')
      .innerJoin('workflow_runs', 'workflow_runs.id', 'ci_tasks.run_id')
      .select([
        'ci_tasks.name',
        'workflow_runs.id',
        'workflow_runs.number',
        'workflow_runs.repo_id',
      ])
      .where('ci_tasks.id', '=', taskId)
      .where('ci_tasks.status', '=', 'running')
      .executeTakeFirst();
    if (row === undefined) return undefined;
    return {
      taskId,
      jobName: row.name,
      runId: row.id,
      runNumber: Number(row.number),
      repoId: row.repo_id,
    };
  }

  async findById(id: number): Promise<Artifact | undefined> {
    const row = await this.#db
      .selectFrom('ci_artifacts')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    return row && toArtifact(row);
  }

  async findByName(runId: string, name: string): Promise<Artifact | undefined> {
    const row = await this.#db
      .selectFrom('ci_artifacts')
      .selectAll()
      .where('run_id', '=', runId)
      .where('name', '=', name)
      .executeTakeFirst();
    return row && toArtifact(row);
  }

  /** Inserts an artifact, or returns undefined when the run already has one of that name. */
  async create(artifact: NewArtifact): Promise<Artifact | undefined> {
    const row = await this.#db
      .insertInto('ci_artifacts')
      .values({
        repo_id: artifact.task.repoId,
        run_id: artifact.task.runId,
        task_id: artifact.task.taskId,
        job_name: artifact.task.jobName,
        name: artifact.name,
        protocol: artifact.protocol,
        state: 'uploading',
        created_at: artifact.createdAt.getTime(),
        expires_at: artifact.expiresAt.getTime(),
      })
      .onConflict((c) => c.columns(['run_id', 'name']).doNothing())
      .returningAll()
      .executeTakeFirst();
    return row && toArtifact(row);
  }

  /** Records a file of an artifact (again, when a chunk of it arrives again). */
  async putFile(artifactId: number, file: ArtifactFile): Promise<void> {
    const values = {
      size: file.size,
      original_size: file.originalSize,
      encoding: file.encoding,
    };
    await this.#db
      .insertInto('ci_artifact_files')
      .values({ artifact_id: artifactId, path: file.path, ...values })
      .onConflict((c) => c.columns(['artifact_id', 'path']).doUpdateSet(values))
      .execute();
  }

  /** Moves a file's row to another path (a staged block becoming a part of the blob). */
  async renameFile(artifactId: number, from: string, to: string): Promise<void> {
    await this.#db
      .updateTable('ci_artifact_files')
      .set({ path: to })
      .where('artifact_id', '=', artifactId)
      .where('path', '=', from)
      .execute();
  }

  async findFile(artifactId: number, path: string): Promise<ArtifactFile | undefined> {
    const row = await this.#db
      .selectFrom('ci_artifact_files')
      .select(['path', 'size', 'original_size', 'encoding'])
      .where('artifact_id', '=', artifactId)
      .where('path', '=', path)
      .executeTakeFirst();
    return row && toFile(row);
  }

  /** The files of an artifact by path. */
  async listFiles(artifactId: number): Promise<ArtifactFile[]> {
    const rows = await this.#db
      .selectFrom('ci_artifact_files')
      .select(['path', 'size', 'original_size', 'encoding'])
      .where('artifact_id', '=', artifactId)
      .orderBy('path')
      .execute();
    return rows.map(toFile);
  }

  /** Stored bytes of a repository's artifacts (their files, in any state), but `except`'s file. */
  async repoBytes(repoId: string, except?: { artifactId: number; path: string }): Promise<number> {
    let query = this.#db
      .selectFrom('ci_artifact_files')
      .innerJoin('ci_artifacts', 'ci_artifacts.id', 'ci_artifact_files.artifact_id')
      .select((eb) => eb.fn.sum<string | number>('ci_artifact_files.size').as('total'))
      .where('ci_artifacts.repo_id', '=', repoId);
    if (except) {
      query = query.where((eb) =>
        eb.not(
          eb.and([
            eb('ci_artifact_files.artifact_id', '=', except.artifactId),
            eb('ci_artifact_files.path', '=', except.path),
          ]),
        ),
      );
    }
    const row = await query.executeTakeFirst();
    return Number(row?.total ?? 0);
  }

  /** Marks an artifact finished, its size the sum of its files' stored bytes. */
  async confirm(artifactId: number): Promise<void> {
    const { total } = await this.#db
      .selectFrom('ci_artifact_files')
      .select((eb) => eb.fn.sum<string | number>('size').as('total'))
      .where('artifact_id', '=', artifactId)
      .executeTakeFirstOrThrow();
    await this.#db
      .updateTable('ci_artifacts')
      .set({ state: 'confirmed', size: Number(total ?? 0) })
      .where('id', '=', artifactId)
      .execute();
  }

  /** A run's artifacts by name; only confirmed ones unless `all`. */
  async listByRun(runId: string, all = false): Promise<Artifact[]> {
    let query = this.#db.selectFrom('ci_artifacts').selectAll().where('run_id', '=', runId);
    if (!all) query = query.where('state', '=', 'confirmed');
    return (await query.orderBy('name').execute()).map(toArtifact);
  }

  /** A page of a repository's confirmed artifacts, newest first, with their count. */
  async listByRepo(
    repoId: string,
    page: { limit: number; offset: number },
    name?: string,
  ): Promise<{ artifacts: Artifact[]; total: number }> {
    let base = this.#db
      .selectFrom('ci_artifacts')
      .where('repo_id', '=', repoId)
      .where('state', '=', 'confirmed');
    if (name !== undefined) base = base.where('name', '=', name);
    const rows = await base
      .selectAll()
      .orderBy('id', 'desc')
      .limit(page.limit)
      .offset(page.offset)
      .execute();
    const { count } = await base
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .executeTakeFirstOrThrow();
    return { artifacts: rows.map(toArtifact), total: Number(count) };
  }

  async delete(id: number): Promise<void> {
    await this.#db.deleteFrom('ci_artifacts').where('id', '=', id).execute();
  }

  /** Which of `ids` are artifacts still recorded. */
  async existing(ids: readonly number[]): Promise<Set<number>> {
    if (ids.length === 0) return new Set();
    const rows = await this.#db
      .selectFrom('ci_artifacts')
      .select('id')
      .where('id', 'in', [...ids])
      .execute();
    return new Set(rows.map((row) => Number(row.id)));
  }

  /** Ids of up to `batch` artifacts that expired before `now`. */
  async listExpired(now: number, batch: number): Promise<number[]> {
    const rows = await this.#db
      .selectFrom('ci_artifacts')
      .select('id')
      .where('expires_at', '<=', now)
      .orderBy('expires_at')
      .limit(batch)
      .execute();
    return rows.map((row) => Number(row.id));
  }
}

function toFile(row: {
  path: string;
  size: number;
  original_size: number;
  encoding: string;
}): ArtifactFile {
  return {
    path: row.path,
    size: Number(row.size),
    originalSize: Number(row.original_size),
    encoding: row.encoding,
  };
}
