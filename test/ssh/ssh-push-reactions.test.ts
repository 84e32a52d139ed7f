/**
 * A push over SSH is the push use case smart HTTP runs: the same webhook delivery and the same
 * workflow run, with the key's owner as the pusher, as a push of the same kind over HTTP.
 */
import { afterAll, expect, it } from 'vitest';
import type { ServedSsh } from '../../src/ssh/serve-ssh.ts';
import { eventually } from '../support/eventually.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { type Received, Receiver } from '../webhooks/receiver.ts';
import { makeKeyPair, removeKeyPairs, sshGitEnv, sshUrl, startSsh } from './ssh-support.ts';

const WORKFLOW = 'on: push\njobs:\n  unit:\n    runs-on: ssh-box\n    steps:\n      - run: make\n';

let kiln: TestServer;
let git: GitClient;
let dev: Person;
let ssh: ServedSsh;
let receiver: Receiver;
useWorld(
  {
    env: {
      SERVICE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
      // What clone URLs show; the server itself listens on a free port.
      SERVICE_SSH_PUBLIC_HOST: 'git.example',
      SERVICE_SSH_PUBLIC_PORT: '2222',
    },
    people: ['dev'],
    repos: [{ owner: 'dev', name: 'app' }],
  },
  async (world) => {
    ({ kiln, git } = world);
    dev = world.people.dev;
    ssh = await startSsh(kiln);
    receiver = await Receiver.start();
    const hook = await apiCall(kiln.url, `/repos/${dev.user.handle}/app/hooks`, {
      method: 'POST',
      token: dev.token,
      body: {
        type: 'gitea',
        config: { url: receiver.url, content_type: 'json' },
        events: ['push'],
        active: true,
      },
    });
    expect(hook.status).toBe(201);
  },
);
afterAll(async () => {
  await ssh?.server.close();
  await receiver?.close();
  removeKeyPairs();
});

it('delivers the same webhook and starts the same workflow run as a push over HTTP', async () => {
  const pair = makeKeyPair();
  await apiCall(kiln.url, '/user/keys', {
    method: 'POST',
    token: dev.token,
    body: { title: 'laptop', key: pair.publicKey },
  });
  const work = await git.init();
  await git.commit(work, { '.gitea/workflows/ci.yml': WORKFLOW }, 'Add CI');
  const http = repoUrl(kiln.url, dev.user.handle, 'app', { token: dev.token, as: 'password' });
  await git.ok(['push', '-q', http, 'HEAD:refs/heads/via-http'], { cwd: work });
  await git.commit(work, { 'a.txt': 'over ssh\n' }, 'Change over SSH');
  await git.ok(
    ['push', '-q', sshUrl(ssh.port, dev.user.handle, 'app'), 'HEAD:refs/heads/via-ssh'],
    {
      cwd: work,
      env: sshGitEnv(pair, ssh.port),
    },
  );

  const pushOf = (branch: string) =>
    receiver.received.find((entry) => JSON.parse(entry.body).ref === `refs/heads/${branch}`);
  expect(await eventually(async () => !!pushOf('via-http') && !!pushOf('via-ssh'))).toBe(true);
  const overHttp = pushOf('via-http') as Received;
  const overSsh = pushOf('via-ssh') as Received;
  expect(overSsh.headers['x-gitea-event']).toBe('push');
  const httpPayload = JSON.parse(overHttp.body);
  const sshPayload = JSON.parse(overSsh.body);
  expect(Object.keys(sshPayload).sort()).toEqual(Object.keys(httpPayload).sort());
  expect(sshPayload.pusher.login).toBe(dev.user.handle);
  expect(sshPayload.pusher).toEqual(httpPayload.pusher);
  // Payloads name the SSH clone URL as the REST records do.
  expect(sshPayload.repository.ssh_url).toBe(
    `ssh://git@git.example:2222/${dev.user.handle}/app.git`,
  );
  expect(sshPayload.commits[0].message.trim()).toBe('Change over SSH');

  const runs = async () =>
    (await apiCall(kiln.url, `/repos/${dev.user.handle}/app/actions/runs`, { token: dev.token }))
      .body as { workflow_runs: Array<{ head_branch: string; event: string }> };
  expect(await eventually(async () => (await runs()).workflow_runs.length === 2)).toBe(true);
  const branches = (await runs()).workflow_runs.map((run) => [run.head_branch, run.event]).sort();
  expect(branches).toEqual([
    ['via-http', 'push'],
    ['via-ssh', 'push'],
  ]);
});
