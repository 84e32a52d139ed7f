/**
 * The pages a person uses for SSH: their keys under settings, a repository's deploy keys under
 * its settings, and the clone box offering SSH beside HTTPS, as `ssh_url` does in the API.
 */
import { afterAll, expect, it } from 'vitest';
import { apiCall, Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { makeKeyPair, removeKeyPairs } from './ssh-support.ts';

let kiln: TestServer;
let owner: Person;
let reader: Person;
useWorld(
  {
    env: { SERVICE_BASE_URL: 'https://git.example.test', SERVICE_SSH_PORT: '2299' },
    people: ['owner', 'reader'],
    repos: [{ owner: 'owner', name: 'app', autoInit: true }],
  },
  (world) => {
    ({ kiln } = world);
    ({ owner, reader } = world.people);
  },
);
afterAll(removeKeyPairs);

async function signedIn(person: Person): Promise<Browser> {
  const browser = new Browser(kiln.url);
  await browser.get('/login');
  const signed = await browser.post('/login', {
    login: person.user.handle,
    password: person.password,
  });
  expect(signed.status).toBe(303);
  return browser;
}

it('lists, adds and removes a person’s keys', async () => {
  const browser = await signedIn(owner);
  const pair = makeKeyPair();
  const added = await browser.post('/settings/keys', { title: 'laptop', key: pair.publicKey });
  expect(added.status).toBe(303);
  const [key] = await kiln.app.services.sshKeys.listUserKeys(owner.user);
  const page = await (await browser.get('/settings/keys')).text();
  expect(page).toContain('laptop');
  expect(page).toContain(key?.fingerprint);

  const refused = await browser.post('/settings/keys', { title: 'again', key: pair.publicKey });
  expect(refused.status).toBe(422);
  expect(await refused.text()).toContain('this key is already in use');

  // The first post asks; the confirmed one removes.
  const asked = await browser.post(`/settings/keys/${key?.id}/delete`, {});
  expect(asked.status).toBe(200);
  expect(await kiln.app.services.sshKeys.listUserKeys(owner.user)).toHaveLength(1);
  const removed = await browser.post(`/settings/keys/${key?.id}/delete`, { confirm: 'yes' });
  expect(removed.status).toBe(303);
  expect(await kiln.app.services.sshKeys.listUserKeys(owner.user)).toHaveLength(0);
});

it('manages deploy keys for the repository’s administrators only', async () => {
  const path = `/repos/${owner.user.handle}/app/settings/keys`;
  const browser = await signedIn(owner);
  const added = await browser.post(path, {
    title: 'deployer',
    key: makeKeyPair().publicKey,
    write: 'yes',
  });
  expect(added.status).toBe(303);
  const page = await (await browser.get(path)).text();
  expect(page).toContain('deployer');
  expect(page).toContain('read and write');

  const outsider = await signedIn(reader);
  expect((await outsider.get(path)).status).toBe(403);
  const post = await outsider.post(path, { title: 'mine', key: makeKeyPair().publicKey });
  expect(post.status).toBe(403);
});

it('offers the SSH clone URL beside HTTPS, as the API’s ssh_url', async () => {
  const url = `ssh://git@git.example.test:2299/${owner.user.handle}/app.git`;
  const home = await (await new Browser(kiln.url).get(`/repos/${owner.user.handle}/app`)).text();
  expect(home).toContain('Clone over SSH');
  expect(home).toContain(url);
  const record = await apiCall(kiln.url, `/repos/${owner.user.handle}/app`);
  expect(record.body.ssh_url).toBe(url);
});
