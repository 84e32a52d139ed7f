/**
 * Hostile owner, name and ref values on every git-facing surface (smart HTTP, archives on the
 * web and the API, repository creation, branch protections): traversal (`..`, `%2e%2e`, `%2f`,
 * backslashes), NUL and other control characters, leading dashes that git could read as options,
 * and very long values. Each must get a 4xx, and nothing may appear on disk outside the
 * repositories that legitimately exist.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { auth } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { basic, makeRepo, rawRequest } from './fixtures.ts';

/** A name that would show up on disk if any request escaped; searched for afterwards. */
const MARKER = `kilnescape${randomBytes(4).toString('hex')}`;

/** Hostile path segments, already in URL form (percent-escapes are sent as written). */
const SEGMENTS: ReadonlyArray<readonly [string, string]> = [
  ['dot-dot', '..'],
  ['encoded dot-dot', '%2e%2e'],
  ['encoded traversal', `%2e%2e%2f%2e%2e%2f${MARKER}`],
  ['encoded slash', `a%2f${MARKER}`],
  ['backslash', `..%5c..%5c${MARKER}`],
  ['NUL', `${MARKER}%00x`],
  ['newline', `${MARKER}%0a`],
  ['control character', `${MARKER}%01`],
  ['DEL', `${MARKER}%7f`],
  ['leading dash', `--upload-pack=touch%20${MARKER}`],
  ['option-like', `-c${MARKER}`],
  ['very long', 'a'.repeat(5000)],
  ['long but routable', 'b'.repeat(900)],
  ['unicode', `%C3%A9${MARKER}`],
];

/** Hostile refs for archives, in URL form. */
const REFS: ReadonlyArray<readonly [string, string]> = [
  ['dot-dot', '..'],
  ['range', 'main..main'],
  ['traversal', `..%2f..%2f${MARKER}`],
  ['raw traversal', `../../${MARKER}`],
  ['reflog', 'main@%7B1%7D'],
  ['revision syntax', 'main~1'],
  ['search', `%3A%2F${MARKER}`],
  ['leading dash', `--output=%2Ftmp%2F${MARKER}`],
  ['remote option', `--remote=%2Ftmp%2F${MARKER}`],
  ['NUL', 'main%00'],
  ['newline', 'main%0a--output=x'],
  ['backslash', `main%5c${MARKER}`],
  ['very long', 'r'.repeat(5000)],
];

let kiln: TestServer;
let git: GitClient;
let owner: User;
let token: string;
let repo: { owner: string; name: string };

function tree(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((entry) => !/\.(db|sqlite)(-wal|-shm|-journal)?$/.test(entry))
    .sort();
}
let before: string[];

beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  ({ user: owner, token } = await kiln.make.userWithToken());
  repo = await makeRepo(kiln, owner, { name: 'target', autoInit: true });
  before = tree(kiln.dataDir);
});
afterAll(async () => {
  await git?.dispose();
  await kiln?.close();
});

function expect4xx(status: number, what: string) {
  expect(status >= 400 && status < 500, `${what} answered ${status}`).toBe(true);
}

/** Sends `url` with its path untouched (see rawRequest). */
const send = (
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) => {
  const parsed = /^(https?:\/\/[^/]+)(\/.*)$/.exec(url)!;
  return rawRequest(parsed[1]!, parsed[2]!, init);
};

describe.each(SEGMENTS)('a %s owner or name', (_label, segment) => {
  const variants = () => [`${segment}/target`, `${repo.owner}/${segment}`, `${segment}/${segment}`];

  it('gets a 4xx from smart HTTP, anonymous or signed in', async () => {
    for (const pair of variants()) {
      for (const headers of [{}, basic(token)]) {
        for (const suffix of ['.git', '']) {
          const base = `${kiln.url}/${pair}${suffix}`;
          expect4xx(await send(`${base}/info/refs?service=git-upload-pack`, { headers }), base);
          expect4xx(await send(`${base}/info/refs?service=git-receive-pack`, { headers }), base);
          for (const service of ['upload-pack', 'receive-pack']) {
            const status = await send(`${base}/git-${service}`, {
              method: 'POST',
              headers: { ...headers, 'content-type': `application/x-git-${service}-request` },
              body: '0000',
            });
            expect4xx(status, `${base} ${service}`);
          }
        }
      }
    }
  });

  it('gets a 4xx from archives and the REST API', async () => {
    for (const pair of variants()) {
      for (const prefix of ['', '/api/v1']) {
        const url = `${kiln.url}${prefix}/repos/${pair}/archive/main.zip`;
        expect4xx(await send(url, { headers: auth.token(token) }), url);
      }
      for (const rest of ['', '/branch_protections', '/collaborators', '/forks']) {
        const url = `${kiln.url}/api/v1/repos/${pair}${rest}`;
        expect4xx(await send(url, { headers: auth.token(token) }), url);
      }
      const fork = `${kiln.url}/api/v1/repos/${pair}/forks`;
      expect4xx(await send(fork, { method: 'POST', headers: auth.token(token) }), fork);
    }
  });

  it('is refused as the name of a new repository or fork (422)', async () => {
    const name = decodeURIComponent(segment.replaceAll('%00', '\\u0000'));
    for (const body of [{ name }, { name: `${name}.git` }]) {
      const status = await send(`${kiln.url}/api/v1/user/repos`, {
        method: 'POST',
        headers: { ...auth.token(token), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(status, JSON.stringify(body).slice(0, 80)).toBe(422);
    }
    const fork = await send(`${kiln.url}/api/v1/repos/${repo.owner}/${repo.name}/forks`, {
      method: 'POST',
      headers: { ...auth.token(token), 'content-type': 'application/json' },
      body: JSON.stringify({ name }),
    });
    expect(fork).toBe(422);
  });
});

describe.each(REFS)('a %s ref', (_label, ref) => {
  it('gets a 4xx from both archive routes', async () => {
    for (const prefix of ['', '/api/v1']) {
      for (const extension of ['.zip', '.tar.gz']) {
        const url = `${kiln.url}${prefix}/repos/${repo.owner}/${repo.name}/archive/${ref}${extension}`;
        expect4xx(await send(url), url.slice(0, 200));
      }
    }
  });

  it('is refused as a protected branch name', async () => {
    const status = await send(
      `${kiln.url}/api/v1/repos/${repo.owner}/${repo.name}/branch_protections`,
      {
        method: 'POST',
        headers: { ...auth.token(token), 'content-type': 'application/json' },
        body: JSON.stringify({
          rule_name:
            decodeURIComponent(ref.replaceAll('%00', '')) + (ref.includes('%00') ? '\u0000' : ''),
        }),
      },
    );
    expect4xx(status, ref);
  });
});

describe('pushes with hostile ref names', () => {
  it('are refused by receive-pack without touching the disk', async () => {
    const url = repoUrl(kiln.url, repo.owner, repo.name, { token, as: 'password' });
    const work = await git.clone(url);
    for (const ref of [
      'refs/heads/../x',
      'refs/heads/a..b',
      'refs/heads/-x',
      `refs/heads/${MARKER}.lock`,
    ]) {
      await git.fails(['push', url, `HEAD:${ref}`], { cwd: work });
    }
    // Hand-made, so git's client-side checks cannot stop it first.
    const sha = await git.ok(['rev-parse', 'HEAD'], { cwd: work });
    const zero = '0'.repeat(40);
    const line = (text: string) => `${(text.length + 4).toString(16).padStart(4, '0')}${text}`;
    const header = Buffer.from('5041434b0000000200000000', 'hex'); // an empty pack
    const body = Buffer.concat([
      Buffer.from(`${line(`${zero} ${sha} refs/heads/../../../${MARKER}\0report-status\n`)}0000`),
      header,
      createHash('sha1').update(header).digest(),
    ]);
    const response = await fetch(`${kiln.url}/${repo.owner}/${repo.name}.git/git-receive-pack`, {
      method: 'POST',
      headers: { ...basic(token), 'content-type': 'application/x-git-receive-pack-request' },
      body,
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toMatch(/ng refs\/heads\/\.\.\/\.\.\/\.\.\/\S+ funny refname/);
  });
});

describe('afterwards', () => {
  it('left nothing on disk: the data dir is unchanged and no marker exists nearby', async () => {
    expect(tree(kiln.dataDir)).toEqual(before);
    for (const dir of [tmpdir(), path.dirname(kiln.dataDir), process.cwd(), '/tmp']) {
      const found = readdirSync(dir).filter((entry) => entry.includes(MARKER));
      expect(found, dir).toEqual([]);
    }
    const all = readdirSync(kiln.dataDir, { recursive: true, encoding: 'utf8' });
    expect(all.filter((entry) => entry.includes(MARKER))).toEqual([]);
  });

  it('still serves the real repository', async () => {
    const dir = await git.clone(repoUrl(kiln.url, repo.owner, repo.name));
    expect(await git.ok(['ls-files'], { cwd: dir })).toBe('README.md');
  });
});
