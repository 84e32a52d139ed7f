/**
 * `kiln user disable`: a disabled person cannot sign in, their session and tokens stop working,
 * and git refuses them too; `kiln user enable` opens every way in again. The server runs in
 * this process; the commands run as separate processes on the same database and data dir, as
 * an operator would run them beside a live server.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let kiln: TestServer;
let git: GitClient;
let env: Record<string, string>;
beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  const { databaseUrl } = kiln.app.config;
  env = {
    SERVICE_DATA_DIR: join(kiln.dataDir, 'data'),
    SERVICE_LOG_LEVEL: 'silent',
    ...(databaseUrl ? { SERVICE_DATABASE_URL: databaseUrl } : {}),
  };
});
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

/** What each way in answers for the person: password sign-in, an old session, a token, git. */
async function waysIn(
  handle: string,
  password: string,
  session: Browser,
  token: string,
  work: string,
) {
  const fresh = new Browser(kiln.url);
  await fresh.get('/login');
  const signIn = (await fresh.post('/login', { login: handle, password })).status;
  const sessionPage = (await session.get('/settings')).status;
  const api = (
    await fetch(`${kiln.url}/api/v1/user`, { headers: { authorization: `token ${token}` } })
  ).status;
  const url = repoUrl(kiln.url, handle, 'secret', { token, as: 'password' });
  const lsRemote = (await git.run(['ls-remote', url])).code === 0;
  await git.commit(work, { 'notes.txt': `${Date.now()}\n` });
  const push = (await git.run(['push', '-q', url, 'HEAD:main'], { cwd: work })).code === 0;
  return { signIn, sessionPage, api, lsRemote, push };
}

describe('kiln user disable', () => {
  it('shuts every way in, and kiln user enable opens them again', async () => {
    const { user, password, token } = await kiln.make.userWithToken();
    await kiln.app.services.repos.create(user, { name: 'secret', private: true, autoInit: true });
    const session = new Browser(kiln.url);
    await session.get('/login');
    expect((await session.post('/login', { login: user.handle, password })).status).toBe(303);
    const work = await git.clone(
      repoUrl(kiln.url, user.handle, 'secret', { token, as: 'password' }),
    );
    const open = { signIn: 303, sessionPage: 200, api: 200, lsRemote: true, push: true };
    expect(await waysIn(user.handle, password, session, token, work)).toEqual(open);

    const disabled = await runCli(['user', 'disable', '--username', user.handle], env);
    expect(disabled).toMatchObject({ code: 0, stderr: '' });
    expect(disabled.stdout).toContain(`disabled user ${user.handle}`);
    const listed = await runCli(['user', 'list'], env);
    expect(listed.stdout).toMatch(new RegExp(`^${user.handle}\\s.*\\sdisabled\\s`, 'm'));
    const shut = await waysIn(user.handle, password, session, token, work);
    expect(shut.signIn).toBe(401);
    expect(shut.sessionPage).not.toBe(200);
    expect(shut.api).toBe(401);
    expect(shut.lsRemote).toBe(false);
    expect(shut.push).toBe(false);

    expect((await runCli(['user', 'enable', '--username', user.handle], env)).code).toBe(0);
    expect(await waysIn(user.handle, password, session, token, work)).toEqual(open);
  });
});
