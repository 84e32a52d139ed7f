/**
 * Gitea's SSH key API as `tea` and scripts use it: a person's own keys, anyone's public keys,
 * an administrator's hand on others' keys, and deploy keys of a repository, with the keys
 * OpenSSH's `ssh-keygen` makes. What is refused is a 422 with a message.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { expectGiteaDefinition } from '../api/gitea-swagger.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { makeKeyPair, removeKeyPairs } from './ssh-support.ts';

const ADMIN = 'keyadmin';
let kiln: TestServer;
let owner: Person;
let stranger: Person;
let admin: { token: string };
useWorld(
  {
    env: { SERVICE_ADMIN_HANDLES: ADMIN },
    people: ['owner', 'stranger'],
    repos: [
      { owner: 'owner', name: 'open', autoInit: true },
      { owner: 'owner', name: 'secret', private: true, autoInit: true },
    ],
  },
  async (world) => {
    ({ kiln } = world);
    ({ owner, stranger } = world.people);
    admin = await kiln.make.userWithToken({ handle: ADMIN });
  },
);
afterAll(removeKeyPairs);

/** What OpenSSH says the key's fingerprint is. */
function openSshFingerprint(publicKey: string): string {
  const listed = spawnSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', '-'], {
    input: publicKey,
    encoding: 'utf8',
  });
  return listed.stdout.split(' ')[1] ?? '';
}

const api = (path: string, call: Parameters<typeof apiCall>[2] = {}) =>
  apiCall(kiln.url, path, call);

describe('a person’s keys', () => {
  it('adds, lists, shows and removes a key, with OpenSSH’s fingerprint', async () => {
    const pair = makeKeyPair('ed25519');
    const made = await api('/user/keys', {
      method: 'POST',
      token: owner.token,
      body: { title: 'laptop', key: pair.publicKey },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      title: 'laptop',
      key: pair.publicKey.split(' ').slice(0, 2).join(' '),
      fingerprint: openSshFingerprint(pair.publicKey),
      read_only: false,
      key_type: 'user',
      url: `${kiln.url}/api/v1/user/keys/${made.body.id}`,
    });
    expect(Date.parse(made.body.created_at)).toBeGreaterThan(0);
    expectGiteaDefinition(made.body, 'PublicKey');

    const listed = await api('/user/keys', { token: owner.token });
    expect(listed.body.map((key: { id: number }) => key.id)).toContain(made.body.id);
    const filtered = await api(
      `/user/keys?fingerprint=${encodeURIComponent(made.body.fingerprint)}`,
      { token: owner.token },
    );
    expect(filtered.body).toHaveLength(1);
    expect((await api(`/user/keys/${made.body.id}`, { token: owner.token })).body.title).toBe(
      'laptop',
    );
    // Public, as `https://host/NAME.keys` is elsewhere.
    const open = await api(`/users/${owner.user.handle}/keys`);
    expect(open.status).toBe(200);
    expect(open.body.map((key: { key: string }) => key.key)).toContain(made.body.key);

    // Someone else's key is not there for them.
    expect((await api(`/user/keys/${made.body.id}`, { token: stranger.token })).status).toBe(404);
    const removed = await api(`/user/keys/${made.body.id}`, {
      method: 'DELETE',
      token: owner.token,
    });
    expect(removed.status).toBe(204);
    expect((await api(`/user/keys/${made.body.id}`, { token: owner.token })).status).toBe(404);
  });

  it('takes ECDSA and RSA keys of 2048 bits and more', async () => {
    for (const [type, bits] of [
      ['ecdsa', 256],
      ['ecdsa', 521],
      ['rsa', 2048],
      ['rsa', 3072],
    ] as const) {
      const pair = makeKeyPair(type, bits);
      const made = await api('/user/keys', {
        method: 'POST',
        token: owner.token,
        body: { title: `${type}-${bits}`, key: pair.publicKey },
      });
      expect(made.status, `${type} ${bits}`).toBe(201);
      expect(made.body.fingerprint).toBe(openSshFingerprint(pair.publicKey));
    }
  });

  it('refuses with 422 what is not a usable public key, or one already in use', async () => {
    const taken = makeKeyPair('ed25519');
    await api('/user/keys', {
      method: 'POST',
      token: owner.token,
      body: { title: 'first', key: taken.publicKey },
    });
    const pair = makeKeyPair('ed25519');
    const cases: Array<[string, string, RegExp]> = [
      ['malformed', 'ssh-ed25519 AAAAnotbase64!!', /not a valid SSH public key/],
      ['empty', '   ', /empty/],
      ['DSA', makeKeyPair('dsa').publicKey, /DSA/],
      ['short RSA', makeKeyPair('rsa', 1024).publicKey, /2048 bits/],
      ['a private key', readFileSync(pair.privatePath, 'utf8'), /private key/],
      ['two keys', `${pair.publicKey}\n${taken.publicKey}`, /one key/],
      ['in use by its owner', taken.publicKey, /already in use/],
    ];
    for (const [what, key, message] of cases) {
      const refused = await api('/user/keys', {
        method: 'POST',
        token: owner.token,
        body: { title: what, key },
      });
      expect(refused.status, what).toBe(422);
      expect(refused.body.message, what).toMatch(message);
    }
    // One key, one account: nobody else may add it either.
    const again = await api('/user/keys', {
      method: 'POST',
      token: stranger.token,
      body: { title: 'mine too', key: taken.publicKey },
    });
    expect(again.status).toBe(422);
    expect(again.body.message).toMatch(/already in use/);
  });

  it('needs a signed-in caller for the caller’s own keys', async () => {
    expect((await api('/user/keys')).status).toBe(401);
    const pair = makeKeyPair();
    const refused = await api('/user/keys', {
      method: 'POST',
      body: { title: 'x', key: pair.publicKey },
    });
    expect(refused.status).toBe(401);
  });

  it('lets administrators, and only them, add and remove the keys of others', async () => {
    const pair = makeKeyPair();
    const path = `/admin/users/${stranger.user.handle}/keys`;
    const body = { title: 'from the admin', key: pair.publicKey };
    expect((await api(path, { method: 'POST', token: owner.token, body })).status).toBe(403);
    const made = await api(path, { method: 'POST', token: admin.token, body });
    expect(made.status).toBe(201);
    const theirs = await api('/user/keys', { token: stranger.token });
    expect(theirs.body.map((key: { id: number }) => key.id)).toContain(made.body.id);
    const gone = await api(`${path}/${made.body.id}`, { method: 'DELETE', token: admin.token });
    expect(gone.status).toBe(204);
    expect((await api(`/user/keys/${made.body.id}`, { token: stranger.token })).status).toBe(404);
  });
});

describe('deploy keys', () => {
  it('are read-only unless asked otherwise, and one repository’s only', async () => {
    const readOnly = makeKeyPair();
    const writable = makeKeyPair();
    const base = `/repos/${owner.user.handle}/secret/keys`;
    const first = await api(base, {
      method: 'POST',
      token: owner.token,
      body: { title: 'ci', key: readOnly.publicKey },
    });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({
      title: 'ci',
      read_only: true,
      key_id: first.body.id,
      fingerprint: openSshFingerprint(readOnly.publicKey),
      url: `${kiln.url}/api/v1${base}/${first.body.id}`,
    });
    expectGiteaDefinition(first.body, 'DeployKey');
    const second = await api(base, {
      method: 'POST',
      token: owner.token,
      body: { title: 'deployer', key: writable.publicKey, read_only: false },
    });
    expect(second.body.read_only).toBe(false);
    const listed = await api(base, { token: owner.token });
    expect(listed.body.map((key: { title: string }) => key.title)).toEqual(['ci', 'deployer']);
    expect((await api(`${base}/${first.body.id}`, { token: owner.token })).body.title).toBe('ci');

    // A key in one deploy slot is in use everywhere else.
    const elsewhere = await api(`/repos/${owner.user.handle}/open/keys`, {
      method: 'POST',
      token: owner.token,
      body: { title: 'again', key: readOnly.publicKey },
    });
    expect(elsewhere.status).toBe(422);
    const asPersonal = await api('/user/keys', {
      method: 'POST',
      token: stranger.token,
      body: { title: 'again', key: readOnly.publicKey },
    });
    expect(asPersonal.status).toBe(422);

    const gone = await api(`${base}/${first.body.id}`, { method: 'DELETE', token: owner.token });
    expect(gone.status).toBe(204);
    expect((await api(`${base}/${first.body.id}`, { token: owner.token })).status).toBe(404);
  });

  it('are hidden from those who may not administer the repository', async () => {
    const pair = makeKeyPair();
    const body = { title: 'x', key: pair.publicKey };
    // A private repository is missing to a stranger; a public one is not theirs to manage.
    const secret = `/repos/${owner.user.handle}/secret/keys`;
    const open = `/repos/${owner.user.handle}/open/keys`;
    expect((await api(secret, { token: stranger.token })).status).toBe(404);
    expect((await api(secret, { method: 'POST', token: stranger.token, body })).status).toBe(404);
    expect((await api(open, { token: stranger.token })).status).toBe(403);
    expect((await api(open, { method: 'POST', token: stranger.token, body })).status).toBe(403);
  });

  it('ask an anonymous caller for a token, as Gitea does, about a repository it can see', async () => {
    const open = `/repos/${owner.user.handle}/open/keys`;
    const listed = await api(open);
    expect(listed.status).toBe(401);
    expect(listed.body).toMatchObject({ message: 'token is required' });
    expect((await api(`${open}/1`)).status).toBe(401);
    // A private repository stays missing, as it is to a signed-in stranger.
    expect((await api(`/repos/${owner.user.handle}/secret/keys`)).status).toBe(404);
    expect((await api(`/repos/${owner.user.handle}/secret/keys/1`)).status).toBe(404);
    expect((await api(`/repos/${owner.user.handle}/nothing/keys`)).status).toBe(404);
  });
});
