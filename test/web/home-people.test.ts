/**
 * The start page (introduction or dashboard), /explore with pages, and the pages of people and
 * organisations: profiles without email, the repositories the viewer may see, members.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { User } from '../../src/domain/users/user.types.ts';
import { Browser } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { makeRepo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let pat: User;
let patPassword: string;

beforeAll(async () => {
  kiln = await startTestServer();
  ({ user: pat, password: patPassword } = await kiln.make.user({
    handle: 'pat',
    fullName: 'Pat Potter',
  }));
  await makeRepo(kiln, pat, 'open-pot', { description: 'Everyone sees this' });
  await makeRepo(kiln, pat, 'secret-pot', { private: true });
  for (let i = 0; i < 21; i++) await makeRepo(kiln, pat, `bulk-${String(i).padStart(2, '0')}`);
});
afterAll(async () => {
  await kiln?.close();
});

describe('/', () => {
  it('introduces Kiln and lists public repositories to visitors', async () => {
    const body = await page(new Browser(kiln.url), '/');
    expect(body).toContain('A self-hosted git forge');
    expect(body).toContain('href="/signup"');
    expect(body).not.toContain('secret-pot');
  });

  it('shows your repositories, private ones too, and a slot for pull requests', async () => {
    const { user, password } = await kiln.make.user();
    await makeRepo(kiln, user, 'hidden', { private: true });
    const body = await page(await signedIn(kiln, user.handle, password), '/');
    expect(body).toContain('Your repositories');
    expect(body).toContain(`href="/repos/${user.handle}/hidden"`);
    expect(body).toContain('id="pulls-heading"');
    const busy = await page(await signedIn(kiln, 'pat', patPassword), '/');
    expect(busy).toContain('Welcome back, Pat Potter');
    expect(busy).toContain('Show all 23');
  });
});

describe('/explore', () => {
  it('pages through the repositories the viewer can see', async () => {
    const anonymous = new Browser(kiln.url);
    const first = await page(anonymous, '/explore');
    expect(first).toContain('22 repositories');
    expect(first).toContain('href="/explore?page=2"');
    expect(first).not.toContain('secret-pot');
    const second = await page(anonymous, '/explore?page=2');
    expect(second).toContain('pat/open-pot');
    expect(second).not.toContain('?page=3');
    const owner = await signedIn(kiln, 'pat', patPassword);
    expect(await page(owner, '/explore')).toContain('23 repositories');
  });
});

describe('/{owner}', () => {
  it('shows a person without their email, with the repositories the viewer may see', async () => {
    const body = await page(new Browser(kiln.url), '/pat');
    expect(body).toContain('Pat Potter');
    expect(body).not.toContain(pat.email);
    expect(body).toContain('href="/repos/pat/bulk-00"');
    expect(body).not.toContain('secret-pot');
    expect(body).toContain('href="/pat?page=2"');
    const owner = await signedIn(kiln, 'pat', patPassword);
    expect(await page(owner, '/pat?page=2')).toContain('secret-pot');
  });

  it('shows an organisation with its members', async () => {
    const org = await kiln.make.org(pat, 'potters');
    const { user: member } = await kiln.make.user({ handle: 'apprentice' });
    await kiln.app.services.orgs.addMember(org, member, 'member');
    await makeRepo(kiln, pat, 'guild', { orgName: 'potters' });
    await makeRepo(kiln, pat, 'guild-secret', { orgName: 'potters', private: true });
    const anonymousView = await page(new Browser(kiln.url), '/potters');
    expect(anonymousView).toContain('Organisation');
    expect(anonymousView).toContain('href="/apprentice"');
    expect(anonymousView).toContain('href="/pat"');
    expect(anonymousView).toContain('href="/repos/potters/guild"');
    expect(anonymousView).not.toContain('guild-secret');
    expect(anonymousView).not.toContain(member.email);
  });

  it('is 404 for unknown accounts', async () => {
    expect((await new Browser(kiln.url).get('/no-such-person')).status).toBe(404);
  });
});
