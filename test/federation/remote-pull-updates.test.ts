import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { forkAcross } from './fork-across.ts';
import { apiCall as call } from './support.ts';

type Json = Record<string, unknown>;

/**
 * A branch proposed from a fork on A to its upstream on B: pushing to the branch on A moves the
 * pull request on B (its head, its commits, its `synchronized`), and only the proposer can.
 */
describe('a push to a proposed branch updates the pull request upstream', () => {
  let world: Awaited<ReturnType<typeof forkAcross>>;
  const upstreamPull = async () =>
    (await call(world.b, world.author.token, 'GET', `/repos/${world.author.handle}/tool/pulls/1`))
      .json;
  const headOf = async () => ((await upstreamPull()).head as Json).sha;

  beforeAll(async () => {
    world = await forkAcross();
  });
  afterAll(() => world?.close());

  it('moves the head upstream, records the push, and ignores anyone but the proposer', async () => {
    const { a, b, git, work, author, proposer, stranger, pushTo } = world;
    const first = await world.proposeFeature();
    await eventually(async () => (await upstreamPull()).number === 1, 30_000);
    expect(await headOf()).toBe(first);

    // Someone else's Update naming the pull changes nothing.
    const pullUrl = `${b.url}/${author.handle}/tool/pulls/1`;
    const branch = (repo: string, ref: string) => ({ type: 'Branch', context: repo, ref });
    const forged = {
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://forgefed.org/ns'],
      id: `${stranger.id}#update/1`,
      type: 'Update',
      actor: stranger.id,
      object: {
        id: pullUrl,
        type: 'Ticket',
        attachment: {
          type: 'Offer',
          origin: branch(`${a.url}/repos/${proposer.handle}/tool`, 'refs/heads/feature'),
          target: branch(`${b.url}/repos/${author.handle}/tool`, 'refs/heads/main'),
        },
      },
    };
    const inbox = `${b.url}/federation/repos/${author.handle}/tool/inbox`;
    expect((await stranger.send(inbox, forged)).status).toBeLessThan(300);

    const second = await git.commit(work, { 'feature.txt': 'one\ntwo\n' }, 'feature, part two');
    await pushTo(a, proposer, 'tool', 'refs/heads/feature');
    expect(await eventually(async () => (await headOf()) === second, 30_000)).toBe(true);

    // The push is on the pull's page, by its remote author, as a local push would be.
    const page = await fetch(`${b.url}/${author.handle}/tool/pulls/1`);
    const text = (await page.text()).replace(/<[^>]+>/g, '').replace(/\s+/g, ' ');
    expect(text).toContain('Commits2');
    expect(text).toContain(`pushed 1 commit (${first.slice(0, 7)}..${second.slice(0, 7)})`);
  });
});
