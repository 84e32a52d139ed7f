/**
 * Deploy keys against protected branches over SSH: a deploy key's push is judged as a deploy
 * key, not as whoever added it. Under a push whitelist it goes through only when the rule lets
 * deploy keys push, whether or not its adder is on the whitelist.
 */
import { expect, it } from 'vitest';
import type { ServedSsh } from '../../src/ssh/serve-ssh.ts';
import type { GitClient } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import type { Person } from '../support/world.ts';
import { type KeyPair, makeKeyPair, sshGitEnv, sshUrl, useSshWorld } from './ssh-support.ts';

let kiln: TestServer;
let git: GitClient;
let ssh: ServedSsh;
let owner: Person;

useSshWorld(
  {
    people: ['owner'],
    repos: [{ owner: 'owner', name: 'app', private: true, autoInit: true }],
    timeoutMs: 60_000,
  },
  (world, served) => {
    ({ kiln, git } = world);
    owner = world.people.owner;
    ssh = served;
  },
);

const protections = () => `/repos/${owner.user.handle}/app/branch_protections`;

async function pushWith(key: KeyPair, branch: string) {
  const dir = await git.init();
  await git.commit(dir, { [`${branch}.txt`]: `${branch}\n` });
  return git.run(
    ['push', sshUrl(ssh.port, owner.user.handle, 'app'), `HEAD:refs/heads/${branch}`],
    {
      cwd: dir,
      env: sshGitEnv(key, ssh.port),
    },
  );
}

it('pushes to a whitelisted branch only when the rule lets deploy keys push', async () => {
  const key = makeKeyPair();
  const made = await apiCall(kiln.url, `/repos/${owner.user.handle}/app/keys`, {
    method: 'POST',
    token: owner.token,
    body: { title: 'deploy', key: key.publicKey, read_only: false },
  });
  expect(made.status).toBe(201);
  // The key's adder is on the whitelist; deploy keys are not.
  const rule = await apiCall(kiln.url, protections(), {
    method: 'POST',
    token: owner.token,
    body: {
      rule_name: 'release/*',
      enable_push: true,
      enable_push_whitelist: true,
      push_whitelist_usernames: [owner.user.handle],
      push_whitelist_deploy_keys: false,
    },
  });
  expect(rule.status).toBe(201);
  const refused = await pushWith(key, 'release/one');
  expect(refused.code, refused.stderr).not.toBe(0);
  expect(refused.stderr).toContain('you may not push to this protected branch');

  // Deploy keys listed, adder not: the key pushes.
  const changed = await apiCall(kiln.url, `${protections()}/release%2F*`, {
    method: 'PATCH',
    token: owner.token,
    body: { push_whitelist_usernames: [], push_whitelist_deploy_keys: true },
  });
  expect(changed.status).toBe(200);
  const pushed = await pushWith(key, 'release/two');
  expect(pushed.code, pushed.stderr).toBe(0);
});
