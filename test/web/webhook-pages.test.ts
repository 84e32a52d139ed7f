/**
 * The webhook settings pages over real HTTP, seen by a browser without JavaScript and by a real
 * receiver on 127.0.0.1: an admin adds a hook through the form, tests it, reads the delivery in
 * the log and redelivers it; edits keep a secret left blank; deletion needs its confirmation
 * form. Other people get 404, anonymous visitors the sign-in page, and forms without the CSRF
 * token are refused.
 */
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Repository } from '../../src/domain/repos/repo.types.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { Browser as Anonymous, type Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { commitTo, makeRepo, page, pageUntil, signedIn } from './fixtures.ts';

let kiln: TestServer;
let receiver: Receiver;
let owner: User;
let repo: Repository;
let admin: Browser;
let reader: Browser;
const HOOKS = '/repos/hana/site/settings/hooks';

beforeAll(async () => {
  kiln = await startTestServer({
    SERVICE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
    SERVICE_WEBHOOK_RETRY_DELAY: '50ms',
    SERVICE_SECRET_KEY: 'webhook pages key',
    SERVICE_PROTECT_ENABLED: 'false',
  });
  receiver = await Receiver.start();
  const made = await kiln.make.user({ handle: 'hana' });
  owner = made.user;
  repo = await makeRepo(kiln, owner, 'site');
  await commitTo(kiln, repo, { branch: 'main', files: { 'a.txt': 'a\n' }, message: 'First\n' });
  const other = await kiln.make.user({ handle: 'ravi' });
  await kiln.app.services.collaborators.put(owner, 'hana', 'site', 'ravi', 'write');
  admin = await signedIn(kiln, 'hana', made.password);
  reader = await signedIn(kiln, 'ravi', other.password);
});
afterAll(async () => {
  await receiver?.close();
  await kiln?.close();
});

const hookOwner = { kind: 'repo', id: '' } as const;
const hooksOfRepo = () => kiln.app.services.webhooks.list({ ...hookOwner, id: repo.id });

/** Adds a hook through the form and returns its page's path. */
async function addHook(form: Record<string, string | string[]>): Promise<string> {
  const response = await admin.post(HOOKS, form);
  expect(response.status).toBe(303);
  const location = response.headers.get('location') ?? '';
  expect(location).toMatch(new RegExp(`^${HOOKS}/\\d+$`));
  return location;
}

describe('an admin manages hooks through the pages', () => {
  it('links the tab from the settings navigation', async () => {
    expect(await page(admin, '/repos/hana/site/settings')).toContain(`href="${HOOKS}"`);
    expect(await page(admin, HOOKS)).toContain('No webhooks yet.');
  });

  it('adds a hook, tests it, shows the delivery, and redelivers it', async () => {
    const path = await addHook({
      type: 'gitea',
      url: `${receiver.url}/in`,
      content_type: 'json',
      secret: 'shh',
      events: 'choose_events',
      event: ['push', 'release'],
      branch_filter: 'main',
      active: 'on',
    });
    const [hook] = await hooksOfRepo();
    expect(hook).toMatchObject({ url: `${receiver.url}/in`, events: ['push', 'release'] });
    expect(hook?.hasSecret).toBe(true);
    expect(hook?.branchFilter).toBe('main');
    const form = await page(admin, path);
    expect(form).not.toContain('shh');
    expect(form).toContain('No deliveries yet.');

    const tested = await admin.post(`${path}/test`, {});
    expect(tested.status).toBe(303);
    const [first] = await receiver.waitFor((entry) => entry.url === '/in');
    const signature = createHmac('sha256', 'shh')
      .update(first?.body ?? '')
      .digest('hex');
    expect(first?.headers['x-gitea-signature']).toBe(signature);
    const log = await pageUntil(admin, path, (body) => body.includes('answer 0'));
    expect(log).toContain('<strong>200</strong>');
    expect(log).toContain('x-receiver: yes');
    const delivery = /id="delivery-([^"]+)"/.exec(log)?.[1] ?? '';
    expect(delivery).not.toBe('');

    const again = await admin.post(`${path}/deliveries/${delivery}/redeliver`, {});
    expect(again.status).toBe(303);
    const both = await receiver.waitFor((entry) => entry.url === '/in', 2);
    expect(both[1]?.body).toBe(first?.body);
    await pageUntil(admin, path, (body) => body.includes('answer 1'));

    const list = await page(admin, HOOKS);
    expect(list).toContain(`${receiver.url}/in`);
    expect(list).toMatch(/active<\/td>\s*<td class="p-2 border-top">200/);
  });

  it('keeps the secret when the edit form leaves it blank', async () => {
    const path = await addHook({ url: `${receiver.url}/edit`, secret: 'keep-me', active: 'on' });
    const id = Number(path.split('/').pop());
    const updated = await admin.post(path, {
      url: `${receiver.url}/edited`,
      content_type: 'form',
      secret: '',
      events: 'send_everything',
      branch_filter: '*',
    });
    expect(updated.status).toBe(303);
    const hook = await kiln.app.services.webhooks.get({ ...hookOwner, id: repo.id }, id);
    expect(hook).toMatchObject({ url: `${receiver.url}/edited`, contentType: 'form' });
    expect(hook.active).toBe(false);
    expect(hook.hasSecret).toBe(true);
    expect(hook.events).toContain('pull_request');
  });

  it('answers bad input with the form and a message, not an error page', async () => {
    const before = (await hooksOfRepo()).length;
    const response = await admin.post(HOOKS, { url: 'ftp://nope', events: 'push_only' });
    expect(response.status).toBe(422);
    expect(await response.text()).toContain('invalid url');
    const choice = await admin.post(HOOKS, { url: receiver.url, events: 'choose_events' });
    expect(choice.status).toBe(422);
    expect((await hooksOfRepo()).length).toBe(before);
  });

  it('deletes a hook only through its confirmation form', async () => {
    const path = await addHook({ url: `${receiver.url}/gone` });
    expect(await page(admin, path)).toContain('Yes, delete');
    const asked = await admin.post(`${path}/delete`, {});
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('Delete this webhook?');
    await page(admin, path);
    const deleted = await admin.post(`${path}/delete`, { confirm: 'yes' });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.get('location')).toBe(HOOKS);
    await page(admin, path, 404);
  });
});

describe('who may', () => {
  it('hides the pages and forms from people who do not administer the repository', async () => {
    const path = await addHook({ url: `${receiver.url}/private` });
    await page(reader, HOOKS, 404);
    await page(reader, path, 404);
    const posted = await reader.post(HOOKS, { url: `${receiver.url}/sneaky` });
    expect(posted.status).toBe(404);
    expect((await reader.post(`${path}/delete`, { confirm: 'yes' })).status).toBe(404);
    expect((await hooksOfRepo()).some((hook) => hook.url.endsWith('/sneaky'))).toBe(false);
    const anonymous = await new Anonymous(kiln.url).get(HOOKS);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toContain('/login');
  });

  it('refuses forms without the CSRF token', async () => {
    const before = (await hooksOfRepo()).length;
    const response = await admin.post(HOOKS, { url: `${receiver.url}/forged` }, { csrf: false });
    expect(response.status).toBe(403);
    expect((await hooksOfRepo()).length).toBe(before);
  });
});
