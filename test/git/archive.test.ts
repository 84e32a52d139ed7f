/**
 * Source archives at `/repos/{owner}/{name}/archive/{ref}.zip|.tar.gz` and their API twin:
 * the entries `unzip -l` and `tar tzf` list, the `{name}-{ref}` prefix and download name, refs
 * with slashes, 404 for unknown refs and for private repositories to those who may not see them
 * (token or browser session), 400 for unknown extensions.
 */
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { auth, Browser, json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { makeRepo } from './fixtures.ts';

let kiln: TestServer;
let git: GitClient;
let owner: User;
let password: string;
let token: string;
let open: { owner: string; name: string };
let hidden: { owner: string; name: string };
let first: string;

beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  ({ user: owner, password, token } = await kiln.make.userWithToken());
  open = await makeRepo(kiln, owner, { name: 'tools' });
  hidden = await makeRepo(kiln, owner, { name: 'secret', private: true });
  const work = await git.init();
  first = await git.commit(work, { 'README.md': '# tools\n', 'src/main.c': 'int main;\n' });
  await git.ok(['tag', 'v1.0'], { cwd: work });
  await git.ok(['tag', '-a', '-m', 'two', 'release/2.0'], { cwd: work });
  await git.commit(work, { 'docs/guide.md': 'guide\n' });
  await git.ok(['branch', 'feature/deep/x'], { cwd: work });
  for (const repo of [open, hidden]) {
    const url = repoUrl(kiln.url, repo.owner, repo.name, { token, as: 'password' });
    await git.ok(['push', '-q', url, 'main', 'feature/deep/x', 'v1.0', 'release/2.0'], {
      cwd: work,
    });
  }
});
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

async function download(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  const bytes = Buffer.from(await response.arrayBuffer());
  return { response, bytes };
}

/** Saves the bytes and runs a listing tool on them, returning its stdout lines. */
async function list(bytes: Buffer, file: string, command: string[]): Promise<string[]> {
  const target = path.join(await git.tempDir('archive-'), file);
  await writeFile(target, bytes);
  const result = spawnSync(command[0]!, [...command.slice(1), target], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return result.stdout.split('\n').filter(Boolean);
}

const zipEntries = async (bytes: Buffer) => (await list(bytes, 'a.zip', ['unzip', '-Z1'])).sort();
const tarEntries = async (bytes: Buffer) => (await list(bytes, 'a.tar.gz', ['tar', 'tzf'])).sort();

for (const [surface, prefix] of [
  ['web', ''],
  ['API', '/api/v1'],
] as const) {
  describe(`${surface} archives`, () => {
    const at = (repo: { owner: string; name: string }, tail: string) =>
      `${kiln.url}${prefix}/repos/${repo.owner}/${repo.name}/archive/${tail}`;

    it('streams a zip of a branch with the {name}-{ref} prefix', async () => {
      const { response, bytes } = await download(at(open, 'main.zip'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/zip');
      expect(response.headers.get('content-disposition')).toBe(
        'attachment; filename="tools-main.zip"',
      );
      expect(await zipEntries(bytes)).toEqual([
        'tools-main/',
        'tools-main/README.md',
        'tools-main/docs/',
        'tools-main/docs/guide.md',
        'tools-main/src/',
        'tools-main/src/main.c',
      ]);
      const listing = await list(bytes, 'b.zip', ['unzip', '-l']);
      expect(listing.join('\n')).toContain('tools-main/src/main.c');
    });

    it('streams a tar.gz of a tag', async () => {
      const { response, bytes } = await download(at(open, 'v1.0.tar.gz'));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/gzip');
      expect(response.headers.get('content-disposition')).toBe(
        'attachment; filename="tools-v1.0.tar.gz"',
      );
      expect(await tarEntries(bytes)).toEqual([
        'tools-v1.0/',
        'tools-v1.0/README.md',
        'tools-v1.0/src/',
        'tools-v1.0/src/main.c',
      ]);
    });

    it('matches branches and tags with slashes greedily, raw or %2F-encoded, and full shas', async () => {
      for (const tail of ['feature/deep/x.tar.gz', 'feature%2Fdeep%2Fx.tar.gz']) {
        const { response, bytes } = await download(at(open, tail));
        expect(response.status, tail).toBe(200);
        expect(response.headers.get('content-disposition')).toBe(
          'attachment; filename="tools-feature-deep-x.tar.gz"',
        );
        expect(await tarEntries(bytes)).toContain('tools-feature-deep-x/docs/guide.md');
      }
      // An annotated tag with a slash archives the commit it points at.
      const tagged = await download(at(open, 'release/2.0.zip'));
      expect(tagged.response.status).toBe(200);
      expect(tagged.response.headers.get('content-disposition')).toBe(
        'attachment; filename="tools-release-2.0.zip"',
      );
      expect(await zipEntries(tagged.bytes)).toEqual([
        'tools-release-2.0/',
        'tools-release-2.0/README.md',
        'tools-release-2.0/src/',
        'tools-release-2.0/src/main.c',
      ]);
      const { response, bytes } = await download(at(open, `${first}.zip`));
      expect(response.status).toBe(200);
      expect(await zipEntries(bytes)).toContain(`tools-${first}/src/main.c`);
    });

    it('answers 404 for an unknown ref and 400 for an unknown extension', async () => {
      expect((await fetch(at(open, 'nope.zip'))).status).toBe(404);
      expect((await fetch(at(open, `${'0'.repeat(40)}.tar.gz`))).status).toBe(404);
      for (const tail of ['main.rar', 'main.bundle', 'main', '.zip', 'main.tar']) {
        expect((await fetch(at(open, tail))).status, tail).toBe(400);
      }
      const empty = await makeRepo(kiln, owner);
      expect((await fetch(at(empty, 'main.zip'))).status).toBe(404);
      expect((await fetch(at({ owner: owner.handle, name: 'missing' }, 'main.zip'))).status).toBe(
        404,
      );
    });

    it('gives private archives to those with access and 404 to everyone else', async () => {
      const outsider = await kiln.make.userWithToken();
      expect((await fetch(at(hidden, 'main.zip'))).status).toBe(404);
      expect(
        (await fetch(at(hidden, 'main.zip'), { headers: auth.token(outsider.token) })).status,
      ).toBe(404);
      const reader = await kiln.make.userWithToken();
      await kiln.app.services.collaborators.put(
        owner,
        hidden.owner,
        hidden.name,
        reader.user.handle,
        'read',
      );
      for (const header of [
        auth.token(token),
        auth.bearer(reader.token),
        auth.basicPassword(token),
      ]) {
        const { response, bytes } = await download(at(hidden, 'main.tar.gz'), header);
        expect(response.status).toBe(200);
        expect(await tarEntries(bytes)).toContain('secret-main/README.md');
      }
      expect(
        (await fetch(at(hidden, 'main.zip'), { headers: auth.token('f'.repeat(40)) })).status,
      ).toBe(401);
    });
  });
}

describe('web archives in a browser session', () => {
  it('uses the session cookie of a signed-in person', async () => {
    const browser = new Browser(kiln.url);
    const hiddenUrl = `/repos/${hidden.owner}/${hidden.name}/archive/main.zip`;
    expect((await browser.get(hiddenUrl)).status).toBe(404);
    await browser.get('/login');
    const login = await browser.post('/login', { login: owner.handle, password });
    expect(login.status).toBe(303);
    const response = await browser.get(hiddenUrl);
    expect(response.status).toBe(200);
    expect(await zipEntries(Buffer.from(await response.arrayBuffer()))).toContain(
      'secret-main/src/main.c',
    );
  });

  it('answers the API twin in JSON', async () => {
    const response = await fetch(
      `${kiln.url}/api/v1/repos/${open.owner}/${open.name}/archive/x.7z`,
    );
    expect(response.status).toBe(400);
    expect((await json(response)).message).toMatch(/zip/);
    const missing = await fetch(
      `${kiln.url}/api/v1/repos/${open.owner}/${open.name}/archive/x.zip`,
    );
    expect(missing.status).toBe(404);
    expect(await json(missing)).toHaveProperty('message');
  });
});
