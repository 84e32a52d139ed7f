/**
 * The repository REST endpoints with Gitea's status codes: create (user and organisation, name
 * rules → 422 with a message, duplicates → 409), get, the lists and their `X-Total-Count`,
 * delete, and collaborators. A private repository is 404 to whoever may not see it, on every
 * endpoint, and absent from every list and count. A creation that fails halfway leaves neither
 * a directory nor a row.
 */
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { type ApiCall, apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;
useWorld({ people: ['owner'] }, (world) => {
  ({ kiln, git } = world);
  ({ user: owner, token } = world.people.owner);
});

const api = (path: string, call: ApiCall = {}) => apiCall(kiln.url, path, call);
const create = (body: object, as = token, org?: string) =>
  api(org ? `/orgs/${org}/repos` : '/user/repos', { method: 'POST', token: as, body });
const names = (list: Array<{ full_name: string }>) => list.map((repo) => repo.full_name).sort();

describe('create', () => {
  it('creates an empty repository (201) with Gitea fields', async () => {
    const { status, body } = await create({ name: 'Empty-One', description: ' about ' });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      name: 'Empty-One',
      full_name: `${owner.handle}/Empty-One`,
      description: 'about',
      private: false,
      fork: false,
      empty: true,
      mirror: false,
      archived: false,
      default_branch: 'main',
      clone_url: `${kiln.url}/${owner.handle}/Empty-One.git`,
      html_url: `${kiln.url}/repos/${owner.handle}/Empty-One`,
      permissions: { admin: true, push: true, pull: true },
      default_merge_style: 'merge',
    });
    expect(body.owner.login).toBe(owner.handle);
    expect(body).not.toHaveProperty('parent');
    // The clone URL works as given.
    const cloned = await git.run(['clone', body.clone_url, 'x'], { cwd: await git.tempDir() });
    expect(cloned.code).toBe(0);
  });

  it('creates an initialised private repository on a chosen default branch', async () => {
    const { status, body } = await create({
      name: 'seeded',
      private: true,
      auto_init: true,
      default_branch: 'trunk',
    });
    expect(status).toBe(201);
    expect(body).toMatchObject({ private: true, empty: false, default_branch: 'trunk' });
    const dir = await git.clone(
      repoUrl(kiln.url, owner.handle, 'seeded', { token, as: 'password' }),
    );
    expect(await git.ok(['symbolic-ref', '--short', 'HEAD'], { cwd: dir })).toBe('trunk');
    expect(await git.ok(['ls-files'], { cwd: dir })).toBe('README.md');
  });

  it.each([
    ['', 'empty'],
    ['.', 'dot'],
    ['..', 'dot-dot'],
    ['-', 'dash'],
    ['-lead', 'leading dash'],
    ['.hidden', 'leading dot'],
    ['a..b', 'double dot'],
    ['has space', 'space'],
    ['a/b', 'slash'],
    ['a\\b', 'backslash'],
    ['caf\u00e9', 'non-ASCII'],
    ['tools.git', '.git suffix'],
    ['tools.wiki', '.wiki suffix'],
    ['api', 'reserved word'],
    ['x'.repeat(101), 'too long'],
  ])('refuses the name %j (%s) with 422 and a message', async (name) => {
    const { status, body } = await create({ name });
    expect(status).toBe(422);
    expect(body.message).toEqual(expect.any(String));
    expect(body.message.length).toBeGreaterThan(0);
    expect(body.url).toBe(`${kiln.url}/api/swagger`);
  });

  it('refuses a missing name, a bad default branch and a non-boolean flag with 422', async () => {
    expect((await create({})).status).toBe(422);
    expect((await create({ name: 'ok-name', default_branch: 'a..b' })).status).toBe(422);
    expect((await create({ name: 'ok-name', private: 'yes' })).status).toBe(422);
  });

  it('refuses a duplicate with 409, in any letter case', async () => {
    expect((await create({ name: 'dupe' })).status).toBe(201);
    const again = await create({ name: 'DUPE' });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('The repository with the same name already exists.');
  });

  it('needs a signed-in caller (401)', async () => {
    const { status, headers } = await api('/user/repos', { method: 'POST', body: { name: 'x' } });
    expect(status).toBe(401);
    expect(headers.get('www-authenticate')).toBe('Basic realm="Kiln"');
  });

  it('creates in an organisation for its owners only', async () => {
    const org = await kiln.make.org(owner);
    const member = await kiln.make.userWithToken();
    await kiln.app.services.orgs.addMember(org, member.user, 'member');
    const created = await create({ name: 'org-repo' }, token, org.handle);
    expect(created.status).toBe(201);
    expect(created.body.full_name).toBe(`${org.handle}/org-repo`);
    expect(created.body.owner.login).toBe(org.handle);
    expect((await create({ name: 'by-member' }, member.token, org.handle)).status).toBe(403);
    const stranger = await kiln.make.userWithToken();
    expect([403, 404]).toContain((await create({ name: 'x' }, stranger.token, org.handle)).status);
    expect((await create({ name: 'x' }, token, 'no-such-org')).status).toBe(404);
    expect((await create({ name: 'org-repo' }, token, org.handle)).status).toBe(409);
  });
});

describe('a creation that fails halfway', () => {
  // A repository is a directory and a row, made in that order. The database is made to refuse
  // the row here with a trigger, as a full disk or a lost connection would.
  const REFUSED = 'refused%';
  const dirOf = (name: string, handle = owner.handle) =>
    kiln.app.git.paths.resolve({ owner: handle, name }).path;
  const rowCount = async (name: string) =>
    (
      await kiln.app.database.db
        .selectFrom('repositories')
        .select('id')
        .where('name_lower', '=', name.toLowerCase())
        .execute()
    ).length;

  async function refuseRows(): Promise<void> {
    const { db, dialect } = kiln.app.database;
    if (dialect === 'sqlite') {
      await sql`CREATE TRIGGER refuse_rows BEFORE INSERT ON repositories
        WHEN NEW.name LIKE ${sql.lit(REFUSED)}
        BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`.execute(db);
      return;
    }
    await sql`CREATE FUNCTION refuse_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.name LIKE ${sql.lit(REFUSED)} THEN RAISE EXCEPTION 'refused by the test'; END IF;
        RETURN NEW;
      END $$`.execute(db);
    await sql`CREATE TRIGGER refuse_rows BEFORE INSERT ON repositories
      FOR EACH ROW EXECUTE FUNCTION refuse_rows()`.execute(db);
  }

  async function acceptRows(): Promise<void> {
    const { db, dialect } = kiln.app.database;
    if (dialect === 'sqlite') {
      await sql`DROP TRIGGER refuse_rows`.execute(db);
      return;
    }
    await sql`DROP TRIGGER refuse_rows ON repositories`.execute(db);
    await sql`DROP FUNCTION refuse_rows()`.execute(db);
  }

  it('removes the directory when the row is refused, for a repository and a fork', async () => {
    expect((await create({ name: 'lender', auto_init: true })).status).toBe(201);
    const lenderTip = await git.ok(['--git-dir', dirOf('lender'), 'rev-parse', 'main']);
    const fork = () =>
      api(`/repos/${owner.handle}/lender/forks`, {
        method: 'POST',
        token,
        body: { name: 'refused-fork' },
      });

    await refuseRows();
    try {
      const created = await create({ name: 'refused', auto_init: true });
      expect(created.status).toBeGreaterThanOrEqual(500);
      expect(created.text).not.toContain('refused by the test');
      expect((await fork()).status).toBeGreaterThanOrEqual(500);
      for (const name of ['refused', 'refused-fork']) {
        expect(existsSync(dirOf(name)), name).toBe(false);
        expect(await rowCount(name), name).toBe(0);
        expect((await api(`/repos/${owner.handle}/${name}`, { token })).status, name).toBe(404);
      }
    } finally {
      await acceptRows();
    }

    expect(await git.ok(['--git-dir', dirOf('lender'), 'rev-parse', 'main'])).toBe(lenderTip);
    await git.ok(['--git-dir', dirOf('lender'), 'fsck', '--strict', '--no-dangling']);
    expect((await create({ name: 'refused', auto_init: true })).status).toBe(201);
    expect((await fork()).status).toBe(202);
    expect(await git.ok(['--git-dir', dirOf('refused-fork'), 'rev-parse', 'main'])).toBe(lenderTip);
  });

  it('writes no row when the directory cannot be made', async () => {
    const blocked = await kiln.make.userWithToken();
    // The owner's directory is a file: no repository directory can be made beneath it.
    await writeFile(path.dirname(dirOf('x', blocked.user.handle)), 'in the way\n');
    const created = await create({ name: 'nowhere' }, blocked.token);
    expect(created.status).toBeGreaterThanOrEqual(400);
    expect(await rowCount('nowhere')).toBe(0);
    expect(
      (await api(`/repos/${blocked.user.handle}/nowhere`, { token: blocked.token })).status,
    ).toBe(404);
  });
});

describe('private repositories are invisible', () => {
  let hidden: string;
  let stranger: { token: string };

  beforeAll(async () => {
    const lister = await kiln.make.userWithToken();
    stranger = await kiln.make.userWithToken();
    token = lister.token;
    owner = lister.user;
    await create({ name: 'visible-a' });
    await create({ name: 'visible-b', auto_init: true });
    await create({ name: 'hidden-c', private: true, auto_init: true });
    hidden = `/repos/${owner.handle}/hidden-c`;
  });

  it('answers 404 on every endpoint of a private repository', async () => {
    for (const as of [undefined, stranger.token]) {
      for (const [method, path, body] of [
        ['GET', hidden],
        ['PATCH', hidden, { description: 'x' }],
        ['DELETE', hidden],
        ['GET', `${hidden}/forks`],
        ['POST', `${hidden}/forks`, {}],
        ['GET', `${hidden}/collaborators`],
        ['GET', `${hidden}/collaborators/${owner.handle}`],
        ['PUT', `${hidden}/collaborators/${owner.handle}`, { permission: 'read' }],
        ['GET', `${hidden}/branch_protections`],
        ['GET', `${hidden}/archive/main.zip`],
      ] as const) {
        const response = await api(path, { method, token: as, body });
        // Anonymous writes may be turned away for want of a token first; both say nothing.
        const expected = as === undefined && method !== 'GET' ? [401, 404] : [404];
        expect(expected, `${method} ${path} ${as ? 'signed in' : 'anonymous'}`).toContain(
          response.status,
        );
      }
    }
  });

  it('leaves it out of every list and every X-Total-Count', async () => {
    for (const path of [`/users/${owner.handle}/repos`, '/repos/search', '/repos']) {
      for (const as of [undefined, stranger.token]) {
        const query = path === '/repos/search' ? '?q=-&limit=50' : '?limit=50';
        const response = await api(`${path}${query}`, { token: as });
        expect(response.status, path).toBe(200);
        const list = path === '/repos/search' ? response.body.data : response.body;
        const mine = names(list).filter((name) => name.startsWith(`${owner.handle}/`));
        expect(mine, path).toEqual([`${owner.handle}/visible-a`, `${owner.handle}/visible-b`]);
        if (path !== '/repos/search' && path !== '/repos') {
          expect(response.headers.get('x-total-count'), path).toBe('2');
        }
      }
    }
    const own = await api(`/users/${owner.handle}/repos`, { token });
    expect(own.headers.get('x-total-count')).toBe('3');
    expect(names(own.body)).toContain(`${owner.handle}/hidden-c`);
  });

  it('pages with limit and X-Total-Count', async () => {
    const first = await api(`/users/${owner.handle}/repos?limit=2&page=1`, { token });
    const second = await api(`/users/${owner.handle}/repos?limit=2&page=2`, { token });
    expect(first.headers.get('x-total-count')).toBe('3');
    expect(first.body).toHaveLength(2);
    expect(second.body).toHaveLength(1);
    expect(first.headers.get('link')).toContain('rel="next"');
  });
});

describe('get and delete', () => {
  it('deletes for admins only, removes the directory, and frees the name', async () => {
    const { body } = await create({ name: 'doomed', auto_init: true });
    const repo = `/repos/${body.owner.login}/doomed`;
    const writer = await kiln.make.userWithToken();
    await api(`${repo}/collaborators/${writer.user.handle}`, {
      method: 'PUT',
      token,
      body: { permission: 'write' },
    });
    expect((await api(repo, { method: 'DELETE' })).status).toBe(401);
    expect((await api(repo, { method: 'DELETE', token: writer.token })).status).toBe(403);
    const dir = path.join(
      kiln.app.dataDir,
      'repositories',
      body.owner.login.toLowerCase(),
      'doomed.git',
    );
    expect(existsSync(dir)).toBe(true);
    expect((await api(repo, { method: 'DELETE', token })).status).toBe(204);
    expect(existsSync(dir)).toBe(false);
    expect((await api(repo, { token })).status).toBe(404);
    expect((await api(repo, { method: 'DELETE', token })).status).toBe(404);
    const gone = await git.run(['ls-remote', `${kiln.url}${repo.replace('/repos', '')}.git`]);
    expect(gone.code).not.toBe(0);
    expect((await create({ name: 'doomed' })).status).toBe(201);
    expect((await api(repo, { token })).body.empty).toBe(true);
  });

  it('answers 404 for a repository that does not exist', async () => {
    const response = await api(`/repos/${owner.handle}/never-made`);
    expect(response.status).toBe(404);
    expect(response.body.message).toEqual(expect.any(String));
    expect((await api('/repos/nobody-here/never-made')).status).toBe(404);
  });
});

describe('collaborators', () => {
  it('adds, checks, lists, reports and removes collaborators', async () => {
    const { body } = await create({ name: 'team-work', private: true });
    const repo = `/repos/${body.owner.login}/team-work`;
    const bot = await kiln.make.userWithToken();
    const put = (handle: string, permission?: unknown, as = token) =>
      api(`${repo}/collaborators/${handle}`, {
        method: 'PUT',
        token: as,
        body: permission === undefined ? {} : { permission },
      });

    expect((await api(`${repo}/collaborators/${bot.user.handle}`, { token })).status).toBe(404);
    expect((await put(bot.user.handle, 'read')).status).toBe(204);
    expect((await api(`${repo}/collaborators/${bot.user.handle}`, { token })).status).toBe(204);
    const permission = await api(`${repo}/collaborators/${bot.user.handle}/permission`, { token });
    expect(permission.body).toMatchObject({ permission: 'read', role_name: 'read' });
    expect(permission.body.user.login).toBe(bot.user.handle);

    // The bot now sees the private repository but may not push or administer it.
    expect((await api(repo, { token: bot.token })).body.permissions).toEqual({
      admin: false,
      push: false,
      pull: true,
    });
    expect((await put(owner.handle, 'read', bot.token)).status).toBe(403);

    expect((await put(bot.user.handle, 'write')).status).toBe(204);
    expect((await api(repo, { token: bot.token })).body.permissions.push).toBe(true);
    const list = await api(`${repo}/collaborators`, { token });
    expect(list.body.map((u: { login: string }) => u.login)).toEqual([bot.user.handle]);
    expect(list.headers.get('x-total-count')).toBe('1');

    expect((await put(bot.user.handle, 'owner')).status).toBe(422);
    expect((await put('no-such-user', 'read')).status).toBe(404);
    expect((await put(body.owner.login, 'read')).status).toBe(422);

    expect(
      (await api(`${repo}/collaborators/${bot.user.handle}`, { method: 'DELETE', token })).status,
    ).toBe(204);
    expect(
      (await api(`${repo}/collaborators/${bot.user.handle}`, { method: 'DELETE', token })).status,
    ).toBe(404);
    expect((await api(repo, { token: bot.token })).status).toBe(404);
  });

  it('lets a bot with write access push to a repository it does not own', async () => {
    const { body } = await create({ name: 'bot-target', private: true, auto_init: true });
    const bot = await kiln.make.userWithToken();
    const url = repoUrl(kiln.url, body.owner.login, 'bot-target', {
      token: bot.token,
      as: 'username',
    });
    const work = await git.clone(
      repoUrl(kiln.url, body.owner.login, 'bot-target', { token, as: 'password' }),
    );
    await git.commit(work, { 'bot.txt': 'beep\n' }, 'chore: bot');
    const denied = await git.run(['push', url, 'HEAD:refs/heads/renovate/x'], { cwd: work });
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain('not found');
    await api(`/repos/${body.owner.login}/bot-target/collaborators/${bot.user.handle}`, {
      method: 'PUT',
      token,
      body: { permission: 'write' },
    });
    await git.ok(['push', '-q', url, 'HEAD:refs/heads/renovate/x'], { cwd: work });
    expect(await git.ok(['ls-remote', url, 'renovate/x'])).toMatch(/refs\/heads\/renovate\/x$/);
  });
});
