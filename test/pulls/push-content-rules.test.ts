/**
 * Protection rules over what a push holds, as a git client meets them: protected files refuse
 * a push that changes them (named, without case) whoever pushes, unprotected files let a
 * pusher off the whitelist through when they are all a push changes, and a rule that wants
 * signed commits refuses a commit unless it is signed by an SSH key registered to its
 * committer. Merging a pull into such a branch waits for an administrator (protected files) or
 * cannot happen at all (Kiln does not sign merges).
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { withoutGitOnPath } from '../../src/git/test-support.ts';
import { GitClient, repoUrl } from '../support/git.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { type PullWorld, pullWorld } from './support.ts';

let kiln: TestServer;
let git: GitClient;
let world: PullWorld;
let alice: { user: User; token: string };
let repo: string;

const run = promisify(execFile);

/** Commits `files` on a branch from origin's `from` and pushes it with `url`. */
async function pushAs(url: string, branch: string, files: Record<string, string>, from = 'main') {
  const { work } = world;
  await git.ok(['fetch', '-q', 'origin'], { cwd: work });
  await git.ok(['checkout', '-q', '-B', branch, `origin/${from}`], { cwd: work });
  const sha = await git.commit(work, files, `change on ${branch}`);
  const pushed = await git.run(['push', '-q', url, `${branch}:${branch}`], { cwd: work });
  return { sha, ok: pushed.code === 0, stderr: pushed.stderr };
}

beforeAll(async () => {
  kiln = await startTestServer();
  git = await GitClient.create();
  world = await pullWorld(kiln, git);
  repo = `/repos/${world.owner.handle}/${world.name}`;
  alice = await kiln.make.userWithToken();
  await world.api(`${repo}/collaborators/${alice.user.handle}`, {
    method: 'PUT',
    body: { permission: 'write' },
  });
  await world.pushBranch('main', { 'a.txt': 'a\n', 'ci.yml': 'on: push\n' });
});
afterAll(async () => {
  await kiln?.close();
  await git?.dispose();
});

describe('protected and unprotected files', () => {
  it('refuses a push that changes a protected file, naming it, whoever pushes', async () => {
    const created = await world.api(`${repo}/branch_protections`, {
      body: {
        rule_name: 'main',
        protected_file_patterns: 'ci.yml; docs/**/*.lock',
        enable_push_whitelist: true,
        push_whitelist_usernames: [world.owner.handle],
        unprotected_file_patterns: 'docs/**',
      },
    });
    expect(created.status).toBe(201);
    const refused = await pushAs(world.url, 'main', { 'CI.yml': 'on: pull\n' });
    expect(refused.ok).toBe(false);
    expect(refused.stderr).toContain('branch main is protected from changing file CI.yml');
    const deep = await pushAs(world.url, 'main', { 'docs/a/b/deps.lock': 'x\n' });
    expect(deep.stderr).toContain('protected from changing file docs/a/b/deps.lock');
    expect((await pushAs(world.url, 'main', { 'a.txt': 'b\n' })).ok).toBe(true);
  });

  it('lets a pusher off the whitelist change unprotected files only', async () => {
    const aliceUrl = repoUrl(kiln.url, world.owner.handle, world.name, {
      token: alice.token,
      as: 'username',
    });
    const docs = await pushAs(aliceUrl, 'main', { 'docs/guide.md': 'hello\n' });
    expect(docs).toMatchObject({ ok: true });
    const code = await pushAs(aliceUrl, 'main', { 'a.txt': 'c\n', 'docs/more.md': 'x\n' });
    expect(code.ok).toBe(false);
    expect(code.stderr).toContain('Not allowed to push to protected branch main');
  });

  it('holds a pull that changes a protected file for an administrator', async () => {
    await world.pushBranch('touch-ci', { 'ci.yml': 'on: [push]\n' });
    const pull = await world.openPull('touch-ci');
    const merge = (token: string, force: boolean) =>
      world.api(`${repo}/pulls/${pull.number}/merge`, {
        token,
        body: { Do: 'merge', ...(force && { force_merge: true }) },
      });
    const refused = await merge(alice.token, false);
    expect(refused.status).toBe(405);
    expect(refused.body.message).toBe('not allowed to merge [reason: Changed protected files]');
    // Which files the pull changes is known by its commits: asked again, no git starts.
    const again = await withoutGitOnPath(await git.tempDir('no-git-'), () =>
      merge(alice.token, false),
    );
    expect(again).toEqual(refused);
    expect((await merge(alice.token, true)).status).toBe(405);
    expect((await merge(world.token, true)).status).toBe(200);
  });

  it('refuses patterns that do not compile, with a 422 naming them', async () => {
    const answer = await world.api(`${repo}/branch_protections/main`, {
      method: 'PATCH',
      body: { protected_file_patterns: 'ok.txt;[unclosed' },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toContain('"[unclosed"');
  });
});

describe('signed commits', () => {
  let keyFile: string;
  const signedCommit = async (branch: string, email: string) => {
    const { work } = world;
    await git.ok(['fetch', '-q', 'origin'], { cwd: work });
    await git.ok(['checkout', '-q', '-B', branch, 'origin/main'], { cwd: work });
    await git.commit(work, { [`${branch}.txt`]: `${email}\n` }, 'placeholder');
    await git.ok(
      [
        '-c',
        `user.email=${email}`,
        '-c',
        'gpg.format=ssh',
        '-c',
        `user.signingkey=${keyFile}`,
      ].concat(['commit', '-q', '--amend', '--reset-author', '-S', '-m', 'signed']),
      { cwd: work },
    );
    return git.run(['push', '-q', world.url, `${branch}:${branch}`], { cwd: work });
  };

  beforeAll(async () => {
    keyFile = path.join(await git.tempDir('key-'), 'id');
    await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', keyFile]);
    const { stdout } = await run('ssh-keygen', ['-y', '-f', keyFile]);
    const added = await world.api('/user/keys', { body: { title: 'signing', key: stdout.trim() } });
    expect(added.status).toBe(201);
    const rule = await world.api(`${repo}/branch_protections`, {
      body: { rule_name: 'release/*', require_signed_commits: true },
    });
    expect(rule.status).toBe(201);
  });

  it('refuses an unsigned commit, naming it, on a branch the rule covers', async () => {
    const pushed = await pushAs(world.url, 'release/1', { 'r.txt': 'r\n' });
    expect(pushed.ok).toBe(false);
    expect(pushed.stderr).toContain(
      `branch release/1 is protected from unverified commit ${pushed.sha}`,
    );
    expect((await pushAs(world.url, 'feature/1', { 'r.txt': 'r\n' })).ok).toBe(true);
  });

  it("takes a commit signed with the committer's registered SSH key, no one else's", async () => {
    const own = await signedCommit('release/2', `${world.owner.handle}@example.test`);
    expect(own.stderr).not.toContain('unverified');
    expect(own.code).toBe(0);
    const borrowed = await signedCommit('release/3', `${alice.user.handle}@example.test`);
    expect(borrowed.code).not.toBe(0);
    expect(borrowed.stderr).toContain('is protected from unverified commit');
  });

  it("refuses an address that repeats another user's around a space, signed by someone else", async () => {
    // The key is the owner's; the committer's address names alice twice. Read word by word,
    // the address's two halves matched each other; the whole address must match the signer.
    const alices = `${alice.user.handle}@example.test`;
    const spoofed = await signedCommit('release/4', `${alices} ${alices}`);
    expect(spoofed.code).not.toBe(0);
    expect(spoofed.stderr).toContain('is protected from unverified commit');
  });

  it('blocks merging into it, administrators too: Kiln does not sign merges', async () => {
    await world.pushBranch('to-release', { 'b.txt': 'b\n' });
    const pull = await world.openPull('to-release', 'release/2');
    const merged = await world.api(`${repo}/pulls/${pull.number}/merge`, {
      body: { Do: 'merge', force_merge: true },
    });
    expect(merged.status).toBe(405);
    expect(merged.body.message).toContain('requires signed commits');
  });
});
