/**
 * Two Kiln processes (`node src/main.ts serve`) over one PostgreSQL database and one repository
 * directory, both receiving pushes to one repository at the same moments: each wants to
 * maintain it after every push, and the lease in the database lets only one at a time. The run
 * history the processes write shows no two runs of the repository overlapping, and the
 * repository stays clonable and fsck-clean.
 *
 * Runs only when KILN_TEST_DATABASE_URL names a PostgreSQL (`scripts/with-postgres.sh npx vitest
 * run test/replicas`).
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresAdminUrl } from '../support/database.ts';
import { eventually } from '../support/eventually.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { auth } from '../support/http.ts';
import { createDeployment, type Deployment, type KilnProcess } from './kiln-process.ts';

const ROUNDS = 12;

let deployment: Deployment;
let replicas: [KilnProcess, KilnProcess];
let app: Awaited<ReturnType<Deployment['open']>>['app'];
let git: GitClient;
let handle: string;
let token: string;

describe.skipIf(!postgresAdminUrl)('housekeeping on two replicas', () => {
  beforeAll(async () => {
    deployment = await createDeployment({
      // Every push leaves loose objects, so every push asks for a run on the replica it reached.
      SERVICE_HOUSEKEEPING_LOOSE_THRESHOLD: '1',
      SERVICE_HOUSEKEEPING_PACK_THRESHOLD: '1',
      SERVICE_HOUSEKEEPING_PRUNE_INTERVAL: '0s',
    });
    let make: Awaited<ReturnType<Deployment['open']>>['make'];
    ({ app, make } = await deployment.open({ SERVICE_HOUSEKEEPING_ENABLED: 'false' }));
    replicas = [await deployment.start(), await deployment.start()];
    git = await GitClient.create();
    const made = await make.userWithToken();
    handle = made.user.handle;
    token = made.token;
  }, 90_000);

  afterAll(async () => {
    await git?.dispose();
    await deployment?.dispose();
  });

  it('never maintains one repository on both replicas at once', async () => {
    const created = await fetch(`${replicas[0].url}/api/v1/user/repos`, {
      method: 'POST',
      headers: { ...auth.token(token), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'shared', auto_init: true }),
    });
    expect(created.status).toBe(201);
    const url = (kiln: KilnProcess) =>
      repoUrl(kiln.url, handle, 'shared', { token, as: 'username' });
    const works = await Promise.all(replicas.map((kiln) => git.clone(url(kiln))));

    // Each round, both replicas take a push (to a branch of their own) at the same moment.
    for (let round = 0; round < ROUNDS; round++) {
      await Promise.all(
        replicas.map(async (kiln, i) => {
          const work = works[i] as string;
          await git.commit(work, { [`r${i}.txt`]: `${round}\n` }, `round ${round}`);
          await git.ok(['push', '-q', url(kiln), `HEAD:refs/heads/side-${i}`], { cwd: work });
        }),
      );
    }

    const { db } = app.database;
    const key = `${handle.toLowerCase()}/shared`;
    const idle = async () => {
      const lease = await db
        .selectFrom('repo_housekeeping')
        .select('lease_until')
        .where('repo_key', '=', key)
        .executeTakeFirst();
      return lease !== undefined && Number(lease.lease_until) === 0;
    };
    expect(await eventually(idle, 60_000)).toBe(true);

    const runs = await db
      .selectFrom('housekeeping_runs')
      .select(['holder', 'started_at', 'finished_at', 'outcome'])
      .where('repo_key', '=', key)
      .orderBy('started_at')
      .execute();
    expect(runs.length).toBeGreaterThan(1);
    expect(new Set(runs.map((run) => run.holder)).size).toBe(2);
    expect(runs.every((run) => run.outcome === 'ok')).toBe(true);
    for (let i = 1; i < runs.length; i++) {
      const previous = runs[i - 1];
      const next = runs[i];
      expect(Number(next?.started_at)).toBeGreaterThanOrEqual(Number(previous?.finished_at));
    }

    const clone = await git.clone(url(replicas[1]), ['--mirror']);
    await git.ok(['fsck', '--strict', '--no-progress'], { cwd: clone });
    const onDisk = path.join(
      deployment.dataDir,
      'repositories',
      handle.toLowerCase(),
      'shared.git',
    );
    await git.ok(['--git-dir', onDisk, 'fsck', '--no-progress']);
  });
});
