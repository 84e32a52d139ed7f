/**
 * The world of the Git LFS over SSH suites: an owner's two private repositories, a reader of
 * both, a stranger, a read-only and a writable deploy key on `other`, each person's key added
 * through the API, and an SSH server serving `git-lfs-authenticate` beside the test server.
 */
import { afterAll, expect } from 'vitest';
import { lfsSshCommands } from '../../src/ssh/lfs-authenticate.ts';
import { type ServedSsh, serveSsh } from '../../src/ssh/serve-ssh.ts';
import { installLfs } from '../lfs/lfs-client.ts';
import type { GitClient } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import {
  execSsh,
  type KeyPair,
  makeKeyPair,
  removeKeyPairs,
  runSsh,
  sshGitEnv,
  sshUrl,
} from './ssh-support.ts';

let kiln: TestServer;
let git: GitClient;
let ssh: ServedSsh;
let owner: Person;
let reader: Person;

/**
 * Sets the world up for the calling suite and gives what its tests use. With `pureSsh`, the SSH
 * edge knows no base URL, so `git-lfs-authenticate` cannot answer and whatever git-lfs does
 * goes over `git-lfs-transfer`. `env` configures the server (`SERVICE_LFS_SSH_TRANSFER`, say).
 */
export function useLfsSshWorld(options: { pureSsh?: boolean; env?: Record<string, string> } = {}) {
  // Made per suite, not per module: a later suite in the same worker process must not be handed
  // the keys the earlier one removed when it finished.
  const keys: Record<'owner' | 'reader' | 'stranger' | 'deploy' | 'writer', KeyPair> = {
    owner: makeKeyPair(),
    reader: makeKeyPair(),
    stranger: makeKeyPair(),
    deploy: makeKeyPair(),
    writer: makeKeyPair(),
  };
  useWorld(
    {
      ...(options.env ? { env: options.env } : {}),
      people: ['owner', 'reader', 'stranger'],
      repos: [
        { owner: 'owner', name: 'art', private: true },
        { owner: 'owner', name: 'other', private: true },
      ],
      timeoutMs: 90_000,
    },
    async (world) => {
      ({ kiln, git } = world);
      ({ owner, reader } = world.people);
      await installLfs(git);
      const { app } = kiln;
      ssh = await serveSsh({
        services: app.services,
        config: { ...app.config, ssh: { ...app.config.ssh, port: 0, host: '127.0.0.1' } },
        dataDir: app.dataDir,
        log: kiln.server.log,
        extraCommands: lfsSshCommands(
          app.services,
          options.pureSsh ? undefined : kiln.url,
          kiln.server.log,
          app.config.lfs,
        ),
      });
      for (const who of ['owner', 'reader', 'stranger'] as const) {
        const added = await apiCall(kiln.url, '/user/keys', {
          method: 'POST',
          token: world.people[who].token,
          body: { title: who, key: keys[who].publicKey },
        });
        expect(added.status).toBe(201);
      }
      const deploy = await apiCall(kiln.url, `/repos/${owner.user.handle}/other/keys`, {
        method: 'POST',
        token: owner.token,
        body: { title: 'deploy', key: keys.deploy.publicKey, read_only: true },
      });
      expect(deploy.status).toBe(201);
      const writer = await apiCall(kiln.url, `/repos/${owner.user.handle}/other/keys`, {
        method: 'POST',
        token: owner.token,
        body: { title: 'writer', key: keys.writer.publicKey, read_only: false },
      });
      expect(writer.status).toBe(201);
      for (const name of ['art', 'other']) {
        await app.services.collaborators.put(
          owner.user,
          owner.user.handle,
          name,
          reader.user.handle,
          'read',
        );
      }
    },
  );
  afterAll(async () => {
    await ssh?.server.close();
    removeKeyPairs();
  });

  return {
    kiln: () => kiln,
    git: () => git,
    owner: () => owner,
    reader: () => reader,
    keys,
    sshPort: () => ssh.port,
    /** Runs `command` over SSH with `key`, `input` on its standard input. */
    exec: (key: KeyPair, command: string, input: Buffer) => execSsh(key, ssh.port, command, input),
    /** The `ssh://` remote of the owner's repository `name`. */
    url: (name: string) => sshUrl(ssh.port, owner.user.handle, name),
    /** The environment that makes git use `key`. */
    as: (key: KeyPair) => ({ env: sshGitEnv(key, ssh.port) }),
    /** Runs `git-lfs-authenticate OWNER/repo.git operation` with `key`. */
    authenticate: (key: KeyPair, repo: string, operation: string) =>
      runSsh(key, ssh.port, `git-lfs-authenticate ${owner.user.handle}/${repo}.git ${operation}`),
  };
}
