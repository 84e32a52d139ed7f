/**
 * Files stored with Git LFS on the pages and the API: the file page says so, shows the real
 * size and the real content; its raw link and Gitea's media endpoint serve the real bytes; and
 * archives keep the pointers, as Gitea's do.
 */
import { describe, expect, it } from 'vitest';
import { basic } from '../git/fixtures.ts';
import { type GitClient, noise, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { installLfs, lfsWorkTree } from './lfs-client.ts';

const text = 'Level design notes, kept in LFS.\n'.repeat(40);
const large = noise(1024 * 1024 + 4096);
let kiln: TestServer;
let git: GitClient;
let owner: Person;
let outsider: Person;

useWorld(
  {
    people: ['owner', 'outsider'],
    repos: [
      { owner: 'owner', name: 'media' },
      { owner: 'owner', name: 'hidden', private: true },
    ],
  },
  async (world) => {
    ({ kiln, git } = world);
    ({ owner, outsider } = world.people);
    await installLfs(git);
    const url = repoUrl(kiln.url, owner.user.handle, 'media', {
      token: owner.token,
      as: 'password',
    });
    const dir = await lfsWorkTree(git, url);
    await git.ok(['lfs', 'track', '*.txt'], { cwd: dir });
    await git.commit(dir, { 'notes.txt': text, 'big.bin': large, 'plain.md': '# plain\n' });
    await git.ok(['push', '-q', 'origin', 'main'], { cwd: dir });
    const hidden = repoUrl(kiln.url, owner.user.handle, 'hidden', {
      token: owner.token,
      as: 'password',
    });
    await git.ok(['push', '-q', hidden, 'main'], { cwd: dir });
  },
);

const repoPath = () => `/repos/${owner.user.handle}/media`;
const asOwner = () => basic(owner.token);

describe('file pages resolve pointers', () => {
  it('shows a text file stored with LFS as its content and real size', async () => {
    const page = await fetch(`${kiln.url}${repoPath()}/src/main/notes.txt`, { headers: asOwner() });
    expect(page.status).toBe(200);
    const body = await page.text();
    expect(body).toContain('Stored with Git LFS');
    expect(body).toContain('Level design notes, kept in LFS.');
    expect(body).not.toContain('git-lfs.github.com/spec');
    expect(body).toContain('1.3 KB');
  });

  it('says a large object is too big to show, with its real size, and serves it raw', async () => {
    const page = await fetch(`${kiln.url}${repoPath()}/src/main/big.bin`, { headers: asOwner() });
    const body = await page.text();
    expect(body).toContain('Stored with Git LFS');
    expect(body).toContain('too big to show');
    const raw = await fetch(`${kiln.url}${repoPath()}/raw/main/big.bin`, { headers: asOwner() });
    expect(raw.status).toBe(200);
    expect(Buffer.from(await raw.arrayBuffer()).equals(large)).toBe(true);
  });

  it('counts the repository’s LFS objects and their size on its home page', async () => {
    const home = await (await fetch(`${kiln.url}${repoPath()}`)).text();
    expect(home).toContain('Git LFS: 2 objects, 1.0 MB');
  });

  it('leaves files that are not in LFS as they were', async () => {
    const page = await fetch(`${kiln.url}${repoPath()}/src/main/plain.md`, { headers: asOwner() });
    expect(await page.text()).not.toContain('Stored with Git LFS');
  });
});

describe('GET /api/v1/repos/{owner}/{repo}/media/{path}', () => {
  const media = (path: string) =>
    `${kiln.url}/api/v1/repos/${owner.user.handle}/media/media/${path}`;

  it('serves an LFS object’s bytes, at a ref or on the default branch', async () => {
    const atRef = await fetch(media('big.bin?ref=main'), { headers: asOwner() });
    expect(atRef.status).toBe(200);
    expect(Buffer.from(await atRef.arrayBuffer()).equals(large)).toBe(true);
    const notes = await fetch(media('notes.txt'), { headers: asOwner() });
    expect(await notes.text()).toBe(text);
    const plain = await fetch(media('plain.md'), { headers: asOwner() });
    expect(await plain.text()).toBe('# plain\n');
  });

  it('is a 404 to those who may not see the repository', async () => {
    const hidden = `${kiln.url}/api/v1/repos/${owner.user.handle}/hidden/media/big.bin`;
    const mine = await fetch(hidden, { headers: asOwner() });
    expect(Buffer.from(await mine.arrayBuffer()).equals(large)).toBe(true);
    const stranger = await fetch(hidden, { headers: basic(outsider.token) });
    expect(stranger.status).toBe(404);
    const anonymous = await fetch(hidden);
    expect(anonymous.status).toBe(404);
    await Promise.all([stranger.arrayBuffer(), anonymous.arrayBuffer()]);
  });
});

describe('archives', () => {
  it('keep the pointers', async () => {
    const archive = await fetch(
      `${kiln.url}/api/v1/repos/${owner.user.handle}/media/archive/main.tar.gz`,
      { headers: asOwner() },
    );
    expect(archive.status).toBe(200);
    const { gunzipSync } = await import('node:zlib');
    const tar = gunzipSync(Buffer.from(await archive.arrayBuffer())).toString('latin1');
    expect(tar).toContain('version https://git-lfs.github.com/spec/v1');
  });
});
