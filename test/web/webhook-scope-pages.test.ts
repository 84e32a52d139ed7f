/**
 * The organisation's and the instance's webhook pages over real HTTP, with a real receiver on
 * 127.0.0.1: an organisation owner (at `/org/{org}/settings/hooks`) and an instance admin (at
 * `/admin/hooks`) each add a hook through the form, see a repository's creation delivered in its
 * log, and redeliver it. The pages are the repository's (one set over three scopes); members who
 * are not owners, outsiders and non-admins get 404, anonymous visitors of the organisation's
 * pages the sign-in page.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { Browser as Anonymous, type Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { Receiver } from '../webhooks/receiver.ts';
import { makeRepo, page, pageUntil, signedIn } from './fixtures.ts';

let kiln: TestServer;
let receiver: Receiver;
let hana: User;
let owner: Browser;
let member: Browser;
let outsider: Browser;
let admin: Browser;
const ORG_HOOKS = '/org/acme/settings/hooks';
const SYSTEM_HOOKS = '/admin/hooks';

beforeAll(async () => {
  kiln = await startTestServer({
    SERVICE_WEBHOOK_ALLOWED_HOSTS: 'loopback',
    SERVICE_WEBHOOK_RETRY_DELAY: '50ms',
    SERVICE_SECRET_KEY: 'webhook scope pages key',
    SERVICE_PROTECT_ENABLED: 'false',
    SERVICE_ADMIN_HANDLES: 'olga',
  });
  receiver = await Receiver.start();
  const people: Record<string, Browser> = {};
  for (const handle of ['hana', 'mia', 'ravi', 'olga']) {
    const made = await kiln.make.user({ handle });
    if (handle === 'hana') hana = made.user;
    people[handle] = await signedIn(kiln, handle, made.password);
  }
  const { orgs, users } = kiln.app.services;
  const acme = await orgs.createOrg({ name: 'acme', owner: hana });
  await orgs.addMember(acme, await users.getUser('mia'), 'member');
  [owner, member, outsider, admin] = [people.hana, people.mia, people.ravi, people.olga] as [
    Browser,
    Browser,
    Browser,
    Browser,
  ];
});
afterAll(async () => {
  await receiver?.close();
  await kiln?.close();
});

/**
 * Adds a hook hearing repository events through the form at `hooks`, creates a repository in
 * acme, and follows the delivery from the receiver to the hook's log and back through
 * "Redeliver". Returns the hook's page.
 */
async function hookFollowsACreation(browser: Browser, hooks: string, target: string) {
  const added = await browser.post(hooks, {
    type: 'gitea',
    url: `${receiver.url}${target}`,
    content_type: 'json',
    events: 'choose_events',
    event: ['repository'],
    branch_filter: '*',
    active: 'on',
  });
  expect(added.status).toBe(303);
  const path = added.headers.get('location') ?? '';
  expect(path).toMatch(new RegExp(`^${hooks}/\\d+$`));
  const form = await page(browser, path);
  expect(form).toContain('No deliveries yet.');
  // Repository hooks have a test button (a push of that repository); these have none.
  expect(form).not.toContain('Test delivery');

  await makeRepo(kiln, hana, `made-for${target.replace('/', '-')}`, { orgName: 'acme' });
  const [first] = await receiver.waitFor((entry) => entry.url === target);
  expect(first?.headers['x-gitea-event']).toBe('repository');
  const log = await pageUntil(browser, path, (body) => body.includes('answer'));
  expect(log).toContain('<strong>200</strong>');
  const delivery = /id="delivery-([^"]+)"/.exec(log)?.[1] ?? '';
  expect(delivery).not.toBe('');

  const again = await browser.post(`${path}/deliveries/${delivery}/redeliver`, {});
  expect(again.status).toBe(303);
  const both = await receiver.waitFor((entry) => entry.url === target, 2);
  expect(both[1]?.body).toBe(first?.body);
  // The list shows each hook's latest delivery: the redelivery, once it was answered.
  const answered = /active<\/td>\s*<td class="p-2 border-top">200/;
  const list = await pageUntil(browser, hooks, (body) => answered.test(body));
  expect(list).toContain(`${receiver.url}${target}`);
  return path;
}

describe("an organisation's hooks", () => {
  it('are added by an owner, hear its repositories, log and redeliver', async () => {
    await hookFollowsACreation(owner, ORG_HOOKS, '/org');
    const [hook] = await kiln.app.services.webhooks.list({
      kind: 'org',
      id: (await kiln.app.services.orgs.getOrg('acme')).id,
    });
    expect(hook?.events).toEqual(['repository']);
  });

  it('do not exist for members who are not owners, outsiders or unknown organisations', async () => {
    const [hook] = await kiln.app.services.webhooks.list({
      kind: 'org',
      id: (await kiln.app.services.orgs.getOrg('acme')).id,
    });
    const path = `${ORG_HOOKS}/${hook?.wireId}`;
    for (const browser of [member, outsider]) {
      await page(browser, ORG_HOOKS, 404);
      await page(browser, path, 404);
      expect((await browser.post(ORG_HOOKS, { url: `${receiver.url}/sneaky` })).status).toBe(404);
      expect((await browser.post(`${path}/delete`, {})).status).toBe(404);
    }
    await page(owner, '/org/nobody-here/settings/hooks', 404);
    // Organisation hooks have no test delivery (there is no one repository to push).
    expect((await owner.post(`${path}/test`, {})).status).toBe(404);
    const anonymous = await new Anonymous(kiln.url).get(ORG_HOOKS);
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get('location')).toContain('/login');
  });
});

describe('system hooks', () => {
  it('are added by an instance admin, hear every repository, log and redeliver', async () => {
    // The admin area's navigation leads there; nobody else has it.
    expect(await page(admin, '/admin')).toContain('href="/admin/hooks"');
    expect(await page(owner, '/')).not.toContain('href="/admin');
    await hookFollowsACreation(admin, SYSTEM_HOOKS, '/system');
    const [hook] = await kiln.app.services.webhooks.list({ kind: 'system', id: '' });
    expect(hook?.url).toBe(`${receiver.url}/system`);
  });

  it('do not exist for anyone else, organisation owners and anonymous visitors included', async () => {
    const [hook] = await kiln.app.services.webhooks.list({ kind: 'system', id: '' });
    const path = `${SYSTEM_HOOKS}/${hook?.wireId}`;
    for (const browser of [owner, outsider, new Anonymous(kiln.url)]) {
      await page(browser, SYSTEM_HOOKS, 404);
      await page(browser, path, 404);
      expect((await browser.post(SYSTEM_HOOKS, { url: `${receiver.url}/sneaky` })).status).toBe(
        404,
      );
    }
    const hooks = await kiln.app.services.webhooks.list({ kind: 'system', id: '' });
    expect(hooks.some((entry) => entry.url.endsWith('/sneaky'))).toBe(false);
  });
});
