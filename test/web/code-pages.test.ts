/**
 * Browsing code without JavaScript: the repository home (tree, README, clone URL, ref switcher),
 * directories and files at /src/{ref}/{path} with refs that contain slashes, the raw view and its
 * safe content types, notices instead of big or binary files, and 404 (never 500) for bad refs
 * and paths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repository } from '../../src/domain/repos/repo.types.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { createTag } from '../../src/git/refs.ts';
import { branchesFromRoot } from '../support/branches.ts';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { commitTo, makeRepo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let alice: User;
let repo: Repository;
let first: string;
const anonymous = () => new Browser(kiln.url);

beforeAll(async () => {
  kiln = await startTestServer({ SERVICE_PROTECT_ENABLED: 'false' });
  ({ user: alice } = await kiln.make.user({ handle: 'alice' }));
  repo = await makeRepo(kiln, alice, 'tools', { description: 'Handy tools' });
  const history = await branchesFromRoot(
    kiln,
    repo,
    {
      files: {
        'README.md': '# Tools\n\nSee the [guide](docs/guide.md) and ![logo](img/logo.png).\n',
        'docs/guide.md': '# Guide\n',
        'docs/README.txt': 'plain readme\n',
        'src/main.ts': 'export const answer: number = 42;\n',
        'bin/blob.dat': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]),
        'big.txt': 'x'.repeat(1024 * 1024 + 10),
      },
      message: 'Initial import\n',
    },
    {
      'feature/deep/x': {
        files: { 'src/feature.ts': 'export const feature = true;\n' },
        message: 'Feature\n',
      },
      other: { files: { 'src/other.ts': 'export {};\n' }, message: 'Other\n' },
    },
  );
  first = history.root;
  // A tag named like the first segment of the branch above: the longer name must win.
  await createTag(
    kiln.app.git.catFiles,
    kiln.app.services.repos.handle(repo),
    'feature',
    history.tips.other,
  );
});
afterAll(async () => {
  await kiln?.close();
});

describe('repository home', () => {
  it('lists the default branch, renders the README and offers the clone URL', async () => {
    const body = await page(anonymous(), '/repos/alice/tools');
    expect(body).toContain('Handy tools');
    expect(body).toMatch(/href="\/repos\/alice\/tools\/src\/main\/docs"/);
    expect(body).toMatch(/href="\/repos\/alice\/tools\/src\/main\/README.md"/);
    expect(body).toContain('<h1 id="tools">Tools</h1>');
    expect(body).toContain('href="/repos/alice/tools/src/main/docs/guide.md"');
    expect(body).toContain('src="/repos/alice/tools/raw/main/img/logo.png"');
    expect(body).toContain(`data-copy="${kiln.url}/alice/tools.git"`);
    expect(body).toContain('Initial import');
    // The ref switcher is a <details> menu of plain links, one per branch.
    expect(body).toMatch(/<details[^>]*kiln-refs/);
    expect(body).toContain('href="/repos/alice/tools/src/feature/deep/x"');
    expect(body).toContain('href="/repos/alice/tools/pulls"');
    expect(body).toContain('3</strong> branches');
  });

  it('resolves a README shared by two branches against the branch shown, however often viewed', async () => {
    for (let i = 0; i < 2; i++) {
      const main = await page(anonymous(), '/repos/alice/tools');
      expect(main).toContain('href="/repos/alice/tools/src/main/docs/guide.md"');
      const other = await page(anonymous(), '/repos/alice/tools/src/other');
      expect(other).toContain('<h1 id="tools">Tools</h1>');
      expect(other).toContain('href="/repos/alice/tools/src/other/docs/guide.md"');
      expect(other).not.toContain('/src/main/docs/guide.md');
    }
  });

  it('shows the first branch when the default branch was never pushed', async () => {
    const { user } = await kiln.make.user();
    const other = await makeRepo(kiln, user, 'elsewhere');
    await commitTo(kiln, other, { branch: 'trunk', files: { 'only.txt': 'x\n' } });
    const body = await page(anonymous(), `/repos/${user.handle}/elsewhere`);
    expect(body).toContain('only.txt');
    expect(body).toContain('trunk');
  });

  it('explains how to push to an empty repository', async () => {
    const { user, password } = await kiln.make.user();
    await makeRepo(kiln, user, 'blank');
    const anonymousView = await page(anonymous(), `/repos/${user.handle}/blank`);
    expect(anonymousView).toContain('This repository is empty.');
    expect(anonymousView).not.toContain('git push');
    const owner = await signedIn(kiln, user.handle, password);
    const ownerView = await page(owner, `/repos/${user.handle}/blank`);
    expect(ownerView).toContain(`git remote add origin ${kiln.url}/${user.handle}/blank.git`);
    expect(ownerView).toContain('git push -u origin main');
  });
});

describe('/src/{ref}/{path}', () => {
  it('shows a directory and its README', async () => {
    const body = await page(anonymous(), '/repos/alice/tools/src/main/docs');
    expect(body).toContain('href="/repos/alice/tools/src/main/docs/guide.md"');
    expect(body).toContain('plain readme');
    expect(body).toContain('aria-label="Breadcrumb"');
  });

  it('resolves the longest prefix that is a branch or tag, so refs may contain slashes', async () => {
    const deep = await page(anonymous(), '/repos/alice/tools/src/feature/deep/x/src');
    expect(deep).toContain('feature.ts');
    const short = await page(anonymous(), '/repos/alice/tools/src/feature/src');
    expect(short).toContain('other.ts');
    expect(short).not.toContain('feature.ts');
  });

  it('accepts a commit id as the ref', async () => {
    const body = await page(anonymous(), `/repos/alice/tools/src/${first.slice(0, 10)}/src`);
    expect(body).toContain('main.ts');
  });

  it('highlights a file server-side with line anchors', async () => {
    const body = await page(anonymous(), '/repos/alice/tools/src/main/src/main.ts');
    expect(body).toContain('id="L1"');
    expect(body).toContain('<span class="hljs-keyword">export</span>');
    expect(body).toContain('href="/repos/alice/tools/raw/main/src/main.ts"');
    expect(body).toContain('href="/repos/alice/tools/commits/main/src/main.ts"');
  });

  it('shows a notice instead of a binary or a big file', async () => {
    const binary = await page(anonymous(), '/repos/alice/tools/src/main/bin/blob.dat');
    expect(binary).toContain('Binary file not shown.');
    const big = await page(anonymous(), '/repos/alice/tools/src/main/big.txt');
    expect(big).toContain('This file is too big to show');
    expect(big).not.toContain('xxxxxxxxxxxxxxxx');
  });

  it('redirects /src to the default branch', async () => {
    const response = await anonymous().get('/repos/alice/tools/src');
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toBe('/repos/alice/tools/src/main');
  });

  it.each([
    '/repos/alice/tools/src/nope',
    '/repos/alice/tools/src/main/nope.txt',
    '/repos/alice/tools/src/main/src/main.ts/deeper',
    '/repos/alice/tools/src/main/../etc/passwd',
    '/repos/alice/tools/src/main/%2e%2e/x',
    '/repos/alice/tools/src/..%2f..%2f/x',
    '/repos/alice/tools/src/main~1/x',
    '/repos/alice/tools/src/-x',
    '/repos/alice/tools/src/0000000/x',
    '/repos/alice/tools/src/main/a%00b',
    '/repos/alice/tools/raw/main/nope',
    '/repos/alice/tools/raw/main',
    '/repos/alice/tools/raw/main/src',
    '/repos/alice/nope',
    '/repos/nobody/tools',
  ])('answers 404 for %s', async (path) => {
    const response = await anonymous().get(path);
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('text/html');
  });
});

describe('/raw/{ref}/{path}', () => {
  it('serves text as text/plain with nosniff and a sandbox', async () => {
    const response = await anonymous().get('/repos/alice/tools/raw/feature/deep/x/src/feature.ts');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(response.headers.get('content-security-policy')).toContain('sandbox');
    expect(await response.text()).toBe('export const feature = true;\n');
  });

  it('serves binary files as downloads', async () => {
    const response = await anonymous().get('/repos/alice/tools/raw/main/bin/blob.dat');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/octet-stream');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="blob.dat"/);
    expect(Buffer.from(await response.arrayBuffer())).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01, 0x02]),
    );
  });

  it('serves big files whole', async () => {
    const response = await anonymous().get('/repos/alice/tools/raw/main/big.txt');
    expect(response.status).toBe(200);
    expect((await response.arrayBuffer()).byteLength).toBe(1024 * 1024 + 10);
  });
});

describe('branches and tags', () => {
  it('lists branches with the default first and protected ones marked', async () => {
    await kiln.app.services.protectedBranches.protect(alice, 'alice', 'tools', 'other');
    const body = await page(anonymous(), '/repos/alice/tools/branches');
    const main = body.indexOf('href="/repos/alice/tools/src/main"');
    expect(main).toBeGreaterThan(-1);
    expect(body.indexOf('href="/repos/alice/tools/src/feature/deep/x"')).toBeGreaterThan(main);
    expect(body).toMatch(/>default</);
    expect(body).toMatch(/<\/svg> protected</);
  });

  it('lists tags newest version first', async () => {
    const handle = kiln.app.services.repos.handle(repo);
    await createTag(kiln.app.git.catFiles, handle, 'v1.9', first);
    await createTag(kiln.app.git.catFiles, handle, 'v1.10', first);
    const body = await page(anonymous(), '/repos/alice/tools/tags');
    expect(body.indexOf('v1.10')).toBeGreaterThan(-1);
    expect(body.indexOf('v1.10')).toBeLessThan(body.indexOf('v1.9'));
    const tree = await page(anonymous(), '/repos/alice/tools/src/v1.10/src');
    expect(tree).toContain('main.ts');
  });
});

describe('releases', () => {
  it('lists releases newest first with notes and source archives', async () => {
    const { releases } = kiln.app.services;
    await releases.create(alice, 'alice', 'tools', { tagName: 'r1', name: 'First cut' });
    await releases.create(alice, 'alice', 'tools', {
      tagName: 'r2',
      name: 'Second cut',
      body: 'Some **notes** <script>alert(1)</script>',
      prerelease: true,
    });
    const body = await page(anonymous(), '/repos/alice/tools/releases');
    expect(body.indexOf('Second cut')).toBeLessThan(body.indexOf('First cut'));
    expect(body).toContain('<strong>notes</strong>');
    expect(body).not.toContain('<script>alert');
    expect(body).toContain('Pre-release');
    expect(body).toContain('href="/repos/alice/tools/archive/r2.zip"');
    expect(body).toContain('href="/repos/alice/tools/archive/r1.tar.gz"');
    expect(body).toMatch(/aria-current="page"><svg[\s\S]*?Releases/);
  });
});

describe('/{owner}/{name}', () => {
  it('redirects to the repository pages, also with .git', async () => {
    for (const path of ['/alice/tools', '/alice/tools.git']) {
      const response = await anonymous().get(path);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('/repos/alice/tools');
    }
  });

  it('leaves the git smart HTTP routes alone', async () => {
    const response = await fetch(`${kiln.url}/alice/tools.git/info/refs?service=git-upload-pack`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe(
      'application/x-git-upload-pack-advertisement',
    );
  });
});
