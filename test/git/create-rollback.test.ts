/**
 * A repository is a directory and a row, made in that order, and a creation that fails leaves
 * neither: when the database refuses the row (here a trigger, as a full disk or a lost
 * connection would), the directory already made for a new repository or a fork is removed, no
 * row is left, the parent of a fork is untouched, and the same name can be created afterwards.
 * When the directory cannot be made, no row is written.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { GitClient } from '../support/git.ts';
import { type ApiCall, apiCall } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;

/** Names the database refuses while the trigger is in place. */
const DOOMED = 'doomed%';

beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  ({ user: owner, token } = await kiln.make.userWithToken());
});
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

const api = (path: string, call: ApiCall = {}) => apiCall(kiln.url, path, call);
const dirOf = (name: string, handle = owner.handle) =>
  kiln.app.git.paths.resolve({ owner: handle, name }).path;
const rowCount = async (name: string) => {
  const rows = await kiln.app.database.db
    .selectFrom('repositories')
    .select('id')
    .where('name_lower', '=', name.toLowerCase())
    .execute();
  return rows.length;
};

async function refuseInserts(): Promise<void> {
  const { db, dialect } = kiln.app.database;
  if (dialect === 'sqlite') {
    await sql`CREATE TRIGGER refuse_doomed BEFORE INSERT ON repositories
      WHEN NEW.name LIKE ${sql.lit(DOOMED)}
      BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`.execute(db);
    return;
  }
  await sql`CREATE FUNCTION refuse_doomed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.name LIKE ${sql.lit(DOOMED)} THEN RAISE EXCEPTION 'refused by the test'; END IF;
      RETURN NEW;
    END $$`.execute(db);
  await sql`CREATE TRIGGER refuse_doomed BEFORE INSERT ON repositories
    FOR EACH ROW EXECUTE FUNCTION refuse_doomed()`.execute(db);
}

async function acceptInserts(): Promise<void> {
  const { db, dialect } = kiln.app.database;
  if (dialect === 'sqlite') {
    await sql`DROP TRIGGER refuse_doomed`.execute(db);
    return;
  }
  await sql`DROP TRIGGER refuse_doomed ON repositories`.execute(db);
  await sql`DROP FUNCTION refuse_doomed()`.execute(db);
}

describe('a creation the database refuses', () => {
  it('removes the new directory, for a repository and for a fork, and the name stays free', async () => {
    const parent = await api('/user/repos', {
      method: 'POST',
      token,
      body: { name: 'parent', auto_init: true },
    });
    expect(parent.status).toBe(201);
    const parentTip = await git.ok(['--git-dir', dirOf('parent'), 'rev-parse', 'main']);

    await refuseInserts();
    try {
      const created = await api('/user/repos', {
        method: 'POST',
        token,
        body: { name: 'doomed', auto_init: true },
      });
      expect(created.status).toBeGreaterThanOrEqual(500);
      expect(JSON.stringify(created.body)).not.toContain('refused by the test');
      const forked = await api(`/repos/${owner.handle}/parent/forks`, {
        method: 'POST',
        token,
        body: { name: 'doomed-fork' },
      });
      expect(forked.status).toBeGreaterThanOrEqual(500);

      for (const name of ['doomed', 'doomed-fork']) {
        expect(existsSync(dirOf(name)), name).toBe(false);
        expect(await rowCount(name), name).toBe(0);
        expect((await api(`/repos/${owner.handle}/${name}`, { token })).status, name).toBe(404);
      }
    } finally {
      await acceptInserts();
    }

    expect(await git.ok(['--git-dir', dirOf('parent'), 'rev-parse', 'main'])).toBe(parentTip);
    await git.ok(['--git-dir', dirOf('parent'), 'fsck', '--strict', '--no-dangling']);
    const retried = await api('/user/repos', {
      method: 'POST',
      token,
      body: { name: 'doomed', auto_init: true },
    });
    expect(retried.status).toBe(201);
    const refork = await api(`/repos/${owner.handle}/parent/forks`, {
      method: 'POST',
      token,
      body: { name: 'doomed-fork' },
    });
    expect(refork.status).toBe(202);
    expect(await git.ok(['--git-dir', dirOf('doomed-fork'), 'rev-parse', 'main'])).toBe(parentTip);
  });
});

describe('a creation whose directory cannot be made', () => {
  it('writes no row', async () => {
    const { user: blocked, token: blockedToken } = await kiln.make.userWithToken();
    // The owner's directory is a file: no repository directory can be made beneath it.
    await writeFile(dirOf('x', blocked.handle).replace(/\/[^/]+$/, ''), 'in the way\n');
    const created = await api('/user/repos', {
      method: 'POST',
      token: blockedToken,
      body: { name: 'nowhere' },
    });
    expect(created.status).toBeGreaterThanOrEqual(400);
    expect(await rowCount('nowhere')).toBe(0);
    expect((await api(`/repos/${blocked.handle}/nowhere`, { token: blockedToken })).status).toBe(
      404,
    );
  });
});
