/**
 * A repository's CI and webhook settings pages sit in the repository's header and tabs, as its
 * general settings page does: the same tab bar, with Settings current.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { makeRepo, page, signedIn } from './fixtures.ts';

let kiln: TestServer;
let owner: Person;
useWorld(
  { people: ['owner'], env: { SERVICE_SECRET_KEY: 'settings frames secret key' } },
  (world) => {
    kiln = world.kiln;
    owner = world.people.owner;
  },
);

/** The repository tab bar of a page, as text without its counters, or null without one. */
function repoTabs(html: string): string | null {
  const nav = /<nav class="UnderlineNav" aria-label="Repository">([\s\S]*?)<\/nav>/.exec(html);
  if (!nav) return null;
  return [
    ...(nav[1] ?? '').matchAll(
      /<a class="UnderlineNav-item" href="([^"]+)"( aria-current="page")?/g,
    ),
  ]
    .map((link) => `${link[1]}${link[2] ? ' (current)' : ''}`)
    .join('\n');
}

describe('repository settings pages', () => {
  it('keep the repository header and tabs on the CI and webhook pages', async () => {
    const repo = await makeRepo(kiln, owner.user, 'tools');
    const hook = await kiln.app.services.webhooks.create(
      { kind: 'repo', id: repo.id },
      { type: 'gitea', url: 'https://hooks.example/x', active: false },
    );
    const browser = await signedIn(kiln, owner.user.handle, owner.password);
    const base = `/repos/${owner.user.handle}/tools/settings`;
    const general = repoTabs(await page(browser, base));
    expect(general).toContain(`${base} (current)`);
    for (const path of [`${base}/ci`, `${base}/hooks`, `${base}/hooks/${hook.wireId}`]) {
      const html = await page(browser, path);
      expect(html, path).toContain('kiln-repohead');
      expect(repoTabs(html), path).toBe(general);
    }
  });
});
