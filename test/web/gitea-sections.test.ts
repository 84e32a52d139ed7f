/**
 * Every section of a repository's Gitea address (`/{owner}/{name}/pulls`, `…/releases`,
 * `…/commits/branch/main`, `…/settings/hooks`, …) leads where `/{owner}/{name}` leads: to
 * Kiln's page of that section under `/repos/{owner}/{name}`, in the repository's own spelling
 * whatever letter case was typed, for whoever may see it; a private repository answers those
 * who may not see it exactly as a missing one does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GITEA_REPO_SECTIONS } from '../../src/http/web/pages/gitea-paths.routes.ts';
import { Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { makeRepo, signedIn } from './fixtures.ts';

let kiln: TestServer;
let owner: Person;
useWorld({ people: ['owner'] }, async (world) => {
  kiln = world.kiln;
  owner = world.people.owner;
  await makeRepo(kiln, owner.user, 'Open');
  await makeRepo(kiln, owner.user, 'hidden', { private: true });
});

async function where(browser: Browser, path: string): Promise<[number, string | null]> {
  const response = await browser.get(path);
  await response.arrayBuffer();
  return [response.status, response.headers.get('location')];
}

/** What Kiln's address of a Gitea tail is. */
const EXPECTED: ReadonlyArray<readonly [string, string]> = [
  ['/pulls', '/pulls'],
  ['/pulls?state=closed', '/pulls?state=closed'],
  ['/pulls/4/files', '/pulls/4/files'],
  ['/releases', '/releases'],
  ['/tags', '/tags'],
  ['/branches', '/branches'],
  ['/actions', '/actions'],
  ['/actions/runs/2', '/actions/runs/2'],
  ['/settings', '/settings'],
  ['/settings/hooks', '/settings/hooks'],
  ['/commits/branch/main', '/commits/main'],
  ['/commits/branch/main/docs/a%20b.md', '/commits/main/docs/a%20b.md'],
  ['/commit/abc123', '/commit/abc123'],
  ['/src/tag/v1/README.md', '/src/v1/README.md'],
  ['/src/commit/abc123', '/src/abc123'],
  ['/raw/branch/main/a.txt', '/raw/main/a.txt'],
  ['/compare', '/compare'],
];

describe("Gitea's addresses of a repository's sections", () => {
  it('redirect to the section’s page, as the repository’s own address does', async () => {
    const o = owner.user.handle;
    const anonymous = new Browser(kiln.url);
    for (const [gitea, kiln_] of EXPECTED) {
      expect(await where(anonymous, `/${o}/Open${gitea}`), gitea).toEqual([
        302,
        `/repos/${o}/Open${kiln_}`,
      ]);
    }
    expect(GITEA_REPO_SECTIONS.every((s) => EXPECTED.some(([g]) => g.startsWith(`/${s}`)))).toBe(
      true,
    );
  });

  it('find the repository in any letter case and answer 404 for a hidden or missing one', async () => {
    const o = owner.user.handle;
    const anonymous = new Browser(kiln.url);
    const mine = await signedIn(kiln, o, owner.password);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...GITEA_REPO_SECTIONS),
        fc.mixedCase(fc.constant(o)),
        fc.mixedCase(fc.constant('open')),
        async (section, ownerTyped, nameTyped) => {
          const [status, location] = await where(
            anonymous,
            `/${ownerTyped}/${nameTyped}/${section}`,
          );
          expect(status).toBe(302);
          expect(location).toBe(`/repos/${o}/Open/${section}`);
          const hidden = await where(anonymous, `/${ownerTyped}/hidden/${section}`);
          const missing = await where(anonymous, `/${ownerTyped}/nothing/${section}`);
          expect(hidden).toEqual([404, null]);
          expect(missing).toEqual(hidden);
          expect(await where(mine, `/${ownerTyped}/hidden/${section}`)).toEqual([
            302,
            `/repos/${o}/hidden/${section}`,
          ]);
        },
      ),
      { numRuns: 25 },
    );
  });
});

describe('an API path that looks like a section address', () => {
  it('still gets the API’s own 404', async () => {
    for (const path of ['/api/v1/pulls', '/api/v1/settings/x', '/api/v1/src/branch/main']) {
      const response = await fetch(`${kiln.url}${path}`, { redirect: 'manual' });
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toContain('application/json');
      expect(((await response.json()) as { message: string }).message).toBe('not found');
    }
  });
});
