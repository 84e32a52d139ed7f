/**
 * Who may clone and push, as a matrix: anonymous, a signed-in stranger, collaborators with read,
 * write and admin, the owner, and the owner of an owning organisation, against a public and a
 * private repository. Checked twice: the status of the advertisement request (401 with the Basic
 * challenge, 404, 403) and the outcome of a real `git clone` / `git push`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitClient, repoUrl } from '../support/git.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { basic, ACCESS_MATRIX as MATRIX, makeRepo, type Visibility, type Who } from './fixtures.ts';

let kiln: TestServer;
let git: GitClient;
const tokens = new Map<Who, string | undefined>();
const repos = new Map<string, { owner: string; name: string }>();

beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  const owner = await kiln.make.userWithToken();
  const orgOwner = await kiln.make.userWithToken();
  const org = await kiln.make.org(orgOwner.user);
  tokens.set('anonymous', undefined);
  tokens.set('owner', owner.token);
  tokens.set('org owner', orgOwner.token);
  tokens.set('stranger', (await kiln.make.userWithToken()).token);
  const collaborators = new Map<'read' | 'write' | 'admin', string>();
  for (const level of ['read', 'write', 'admin'] as const) {
    const person = await kiln.make.userWithToken();
    tokens.set(level, person.token);
    collaborators.set(level, person.user.handle);
  }
  for (const visibility of ['public', 'private'] as const) {
    // The personal repository serves every row but "org owner", the organisation's that one.
    const personal = await makeRepo(kiln, owner.user, {
      private: visibility === 'private',
      autoInit: true,
    });
    const inOrg = await makeRepo(kiln, orgOwner.user, {
      private: visibility === 'private',
      autoInit: true,
      orgName: org.handle,
    });
    for (const [repo, admin] of [
      [personal, owner.user],
      [inOrg, orgOwner.user],
    ] as const) {
      for (const [level, handle] of collaborators) {
        await kiln.app.services.collaborators.put(admin, repo.owner, repo.name, handle, level);
      }
    }
    repos.set(`${visibility}`, personal);
    repos.set(`${visibility} org`, inOrg);
  }
});
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

const cases = (['public', 'private'] as const).flatMap((visibility) =>
  (Object.keys(MATRIX[visibility]) as Who[]).map((who) => ({
    visibility,
    who,
    ...MATRIX[visibility][who],
  })),
);

const repoFor = (visibility: Visibility, who: Who) =>
  repos.get(who === 'org owner' ? `${visibility} org` : visibility)!;

describe.each(cases)('$who on a $visibility repository', ({ visibility, who, clone, push }) => {
  it(`answers info/refs with ${clone} for upload-pack and ${push} for receive-pack`, async () => {
    const repo = repoFor(visibility, who);
    const token = tokens.get(who);
    for (const [service, expected] of [
      ['git-upload-pack', clone],
      ['git-receive-pack', push],
    ] as const) {
      const response = await fetch(
        `${kiln.url}/${repo.owner}/${repo.name}.git/info/refs?service=${service}`,
        { headers: token ? basic(token) : {} },
      );
      expect(response.status, service).toBe(expected);
      if (expected === 401) {
        expect(response.headers.get('www-authenticate')).toBe('Basic realm="Kiln"');
      }
      if (expected === 404) expect(await response.text()).toBe('Repository not found.\n');
    }
  });

  it(`${clone === 200 ? 'can' : 'cannot'} clone and ${push === 200 ? 'can' : 'cannot'} push`, async () => {
    const repo = repoFor(visibility, who);
    const token = tokens.get(who);
    const url = repoUrl(
      kiln.url,
      repo.owner,
      repo.name,
      token ? { token, as: 'username' } : undefined,
    );
    const parent = await git.tempDir();
    const cloned = await git.run(['clone', '-q', url, 'c'], { cwd: parent });
    expect(cloned.code === 0, cloned.stderr).toBe(clone === 200);
    if (clone === 404) expect(cloned.stderr).toContain('not found');

    // Push from a clone made by the owner, so every row has something to push.
    const work =
      clone === 200
        ? `${parent}/c`
        : await git.clone(
            repoUrl(kiln.url, repo.owner, repo.name, {
              token: tokens.get(who === 'org owner' ? 'org owner' : 'owner')!,
              as: 'password',
            }),
          );
    await git.commit(work, { [`${who}.txt`]: `${who}\n` }, `push by ${who}`);
    const pushed = await git.run(['push', url, 'HEAD:refs/heads/main'], { cwd: work });
    expect(pushed.code === 0, pushed.stderr).toBe(push === 200);
    if (push === 403) expect(pushed.stderr).toContain('403');
    if (push === 401)
      expect(pushed.stderr).toMatch(/could not read Username|Authentication failed/);
  });
});
