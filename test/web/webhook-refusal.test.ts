/**
 * A delivery refused before it is sent (its receiver's address is not allowed) shows why on the
 * hook's page and in the hooks list, where the outcome of a delivery is read: not a bare
 * "queued" with the reason folded away.
 */
import { describe, expect, it } from 'vitest';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { makeRepo, page, pageUntil, signedIn } from './fixtures.ts';

let kiln: TestServer;
let owner: Person;
useWorld(
  {
    people: ['owner'],
    env: { SERVICE_SECRET_KEY: 'refusal secret key', SERVICE_WEBHOOK_RETRY_DELAY: '1h' },
  },
  (world) => {
    kiln = world.kiln;
    owner = world.people.owner;
  },
);

describe('a refused webhook delivery', () => {
  it('shows its reason where its outcome is shown', async () => {
    const repo = await makeRepo(kiln, owner.user, 'site');
    const hooks = { kind: 'repo', id: repo.id } as const;
    const hook = await kiln.app.services.webhooks.create(hooks, {
      type: 'gitea',
      url: 'http://127.0.0.1:9/in',
      active: true,
    });
    await kiln.app.services.webhooks.sendTest(owner.user, owner.user.handle, 'site', hook.wireId);
    const browser = await signedIn(kiln, owner.user.handle, owner.password);
    const base = `/repos/${owner.user.handle}/site/settings/hooks`;
    const reason = 'is not an allowed webhook address';
    const hookPage = await pageUntil(browser, `${base}/${hook.wireId}`, (body) =>
      body.includes(reason),
    );
    const summary = /<summary>([\s\S]*?)<\/summary>/.exec(hookPage)?.[1] ?? '';
    expect(summary).toContain(reason);
    const list = await page(browser, base);
    expect(list).toContain(reason);
  });
});
