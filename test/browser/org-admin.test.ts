/**
 * Organisations and administration in a real Chromium, clicking what a person clicks: create an
 * organisation from the account menu and add a member on its members page; then an instance
 * administrator disables that member from the admin users page, after which the member's
 * sign-in is refused. Pages must raise no console error or CSP violation.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.ts';
import { type Chromium, screenshot } from './chromium.ts';
import { browserEnabled, useBrowserWorld } from './suite.ts';

let kiln: TestServer;
let chrome: Chromium;
const PASSWORD = 'a long enough secret';

useBrowserWorld(
  async (world) => {
    ({ kiln, chrome } = world);
    for (const handle of ['boss', 'founder', 'newcomer']) {
      await kiln.make.user({ handle, password: PASSWORD });
    }
  },
  { SERVICE_ADMIN_HANDLES: 'boss' },
);

async function signIn(handle: string): Promise<void> {
  const { page } = chrome;
  await chrome.context.clearCookies();
  await page.goto(`${kiln.url}/login`);
  await page.getByLabel('Username or email').fill(handle);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

describe.runIf(browserEnabled)('organisations and administration in a browser', () => {
  it('creates an organisation, adds a member, and an admin disables that member', async () => {
    const { page, problems } = chrome;
    await signIn('founder');
    await page.waitForURL((url) => url.pathname === '/');

    await page.locator('summary', { hasText: 'founder' }).click();
    await page.getByRole('menuitem', { name: 'New organisation' }).click();
    await page.getByLabel('Organisation name').fill('workshop');
    await page.getByRole('button', { name: 'Create organisation' }).click();
    expect(new URL(page.url()).pathname).toBe('/workshop');
    expect(await page.textContent('main')).toContain('workshop was created.');

    await page.getByRole('link', { name: 'Manage members' }).click();
    await page.getByLabel('Username').fill('newcomer');
    await page.getByRole('button', { name: 'Add member' }).click();
    expect(await page.textContent('main')).toContain('newcomer is now a member of workshop.');
    expect(await page.getByRole('list', { name: 'Members' }).textContent()).toContain('newcomer');
    await screenshot(page, 'org-members');

    await signIn('boss');
    await page.waitForURL((url) => url.pathname === '/');
    await page.locator('summary', { hasText: 'boss' }).click();
    await page.getByRole('menuitem', { name: 'Site administration' }).click();
    await page.getByRole('link', { name: 'Users', exact: true }).first().click();
    await page.getByLabel('Search by name or email').fill('newcomer');
    await page.getByRole('button', { name: 'Search' }).click();
    const row = page.locator('tr', { hasText: 'newcomer' });
    await row.getByRole('button', { name: 'Disable' }).click();
    expect(await page.textContent('main')).toContain('newcomer is disabled');
    expect(await page.locator('tr', { hasText: 'newcomer' }).textContent()).toContain('disabled');
    await screenshot(page, 'admin-users');

    expect(problems).toEqual([]);

    // The refused sign-in answers 401, which the console reports as a failed load.
    await signIn('newcomer');
    expect(new URL(page.url()).pathname).toBe('/login');
    expect(await page.textContent('main')).toMatch(/wrong|incorrect|invalid/i);
  }, 60_000);
});
