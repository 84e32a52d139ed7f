/**
 * The dashboard greets someone who has nothing here yet (just signed up, no repositories) with
 * the first steps (create a repository, add a token, push) and "Welcome back" only once they
 * have a repository.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { makeRepo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;

beforeAll(async () => {
  kiln = await startTestServer();
});
afterAll(async () => {
  await kiln?.close();
});

describe('the dashboard greeting', () => {
  it('shows first steps to a new person and "Welcome back" once they have a repository', async () => {
    const { user, password } = await kiln.make.user({ fullName: 'Nova Newcomer' });
    const browser = await signedIn(kiln, user.handle, password);
    const first = await page(browser, '/');
    expect(first).toContain('Welcome to Kiln, Nova Newcomer');
    expect(first).toContain('href="/new"');
    expect(first).toContain('Add a personal access token');
    expect(first).toContain('git push');
    expect(first).not.toContain('Welcome back');

    await makeRepo(kiln, user, 'first-pot');
    const later = await page(browser, '/');
    expect(later).toContain('Welcome back, Nova Newcomer');
    expect(later).not.toContain('Welcome to Kiln');
  });

  it('greets someone right after signing up with first steps', async () => {
    const browser = new Browser(kiln.url);
    const form = await page(browser, '/signup');
    expect(form).toContain('name="username"');
    const handle = `fresh${Date.now().toString(36)}`;
    const answer = await browser.post('/signup', {
      username: handle,
      email: `${handle}@example.test`,
      password: 'correct horse battery',
    });
    expect(answer.status).toBe(303);
    const home = await page(browser, '/');
    expect(home).toContain(`Welcome to Kiln, ${handle}</h2>`);
    expect(home).toContain('Add a personal access token');
    expect(home).not.toContain('Welcome back');
  });
});
