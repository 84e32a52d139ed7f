/**
 * The world helper itself: what a suite asks for is there, reachable over HTTP and git as the
 * suites use it, and gone after `close()`.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { repoUrl } from './git.ts';
import { apiCall } from './http.ts';
import { startWorld } from './world.ts';

describe('startWorld', () => {
  it('makes its people and repositories, and takes them down on close', async () => {
    const world = await startWorld({
      env: () => ({ SERVICE_PROTECT_ENABLED: 'false' }),
      people: ['alice', 'bob'],
      repos: [
        { owner: 'alice', name: 'open', autoInit: true },
        { owner: 'alice', name: 'hidden', private: true },
      ],
    });
    const { kiln, git, people, repos } = world;
    const { alice, bob } = people;
    try {
      expect(alice.user.handle).not.toBe(bob.user.handle);
      const me = await apiCall(kiln.url, '/user', { token: bob.token });
      expect(me.body.login).toBe(bob.user.handle);
      expect(repos.hidden.private).toBe(true);
      const hidden = `/repos/${alice.user.handle}/hidden`;
      expect((await apiCall(kiln.url, hidden, { token: bob.token })).status).toBe(404);
      expect((await apiCall(kiln.url, hidden, { token: alice.token })).status).toBe(200);
      const clone = await git.clone(repoUrl(kiln.url, alice.user.handle, repos.open.name));
      expect(await git.ok(['ls-files'], { cwd: clone })).toBe('README.md');
    } finally {
      await world.close();
    }
    expect(existsSync(kiln.dataDir)).toBe(false);
    expect(existsSync(git.root)).toBe(false);
  });

  it('refuses a repository whose owner is not one of its people', async () => {
    const options = { repos: [{ owner: 'carol', name: 'r' }] } as const;
    await expect(startWorld(options)).rejects.toThrow('carol is not in people');
  });
});
