import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import { type Received, Receiver } from '../webhooks/receiver.ts';
import { forkAcross } from './fork-across.ts';
import { OutageProxy } from './outage-proxy.ts';
import { apiCall as call } from './support.ts';

type Json = Record<string, unknown>;

/**
 * The fork's server (A, reached only through a proxy) goes away while its proposal is updated:
 * the upstream (B) keeps trying to fetch the new head, and once A is back the pull request moves
 * and B's webhooks hear `synchronized`. Nothing is lost.
 */
describe('a proposal updated while the fork’s server is away', () => {
  let world: Awaited<ReturnType<typeof forkAcross>>;
  let proxy: OutageProxy;
  let receiver: Receiver;

  beforeAll(async () => {
    proxy = new OutageProxy();
    await proxy.start();
    receiver = await Receiver.start();
    world = await forkAcross({
      envA: { SERVICE_BASE_URL: proxy.url },
      envB: { SERVICE_WEBHOOK_ALLOWED_HOSTS: 'loopback' },
      started: (a) => {
        proxy.target = a.url;
      },
    });
  }, 60_000);
  afterAll(async () => {
    await Promise.all([world?.close(), proxy?.stop(), receiver?.close()]);
  });

  it('fetches the new head once the fork is back, and announces it', async () => {
    const { a, b, git, work, author, proposer, pushTo } = world;
    const tool = `/repos/${author.handle}/tool`;
    const hook = await call(b, author.token, 'POST', `${tool}/hooks`, {
      type: 'gitea',
      config: { url: receiver.url, content_type: 'json' },
      events: ['pull_request'],
      active: true,
    });
    expect(hook.status).toBe(201);
    const first = await world.proposeFeature();
    const headOnB = async () => {
      const pull = await call(b, author.token, 'GET', `${tool}/pulls/1`);
      return pull.status === 200 ? (pull.json.head as Json).sha : undefined;
    };
    expect(await eventually(async () => (await headOnB()) === first, 30_000)).toBe(true);

    // A goes away; its user pushes to it directly, and A tells B, which cannot fetch from A.
    const second = await git.commit(work, { 'feature.txt': 'one\ntwo\n' }, 'feature, part two');
    proxy.takeDown();
    await pushTo(a, proposer, 'tool', 'refs/heads/feature');
    expect(await eventually(async () => proxy.cut > 0, 30_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await headOnB()).toBe(first);

    proxy.up();
    expect(await eventually(async () => (await headOnB()) === second, 60_000)).toBe(true);
    const payloadOf = (entry: Received) => JSON.parse(entry.body) as Json;
    const [sync] = await receiver.waitFor(
      (entry) =>
        entry.headers['x-gitea-event'] === 'pull_request' &&
        payloadOf(entry).action === 'synchronized',
    );
    const payload = payloadOf(sync as Received);
    expect(payload.number).toBe(1);
    expect(((payload.pull_request as Json).head as Json).sha).toBe(second);
  }, 90_000);

  it('a comment sent while the fork’s server is away lands there once it is back, once', async () => {
    const notes = world.proposalNotes;
    const before = (await notes()).length;
    const cutBefore = proxy.cut;
    proxy.takeDown();
    await world.commentUpstream('Sent while you were away', 1);
    // B's delivery to A's inbox is cut, and waits in B's queue.
    expect(await eventually(async () => proxy.cut > cutBefore, 30_000)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    proxy.up();
    const landed = async () =>
      (await notes()).filter((note) => note.body === 'Sent while you were away');
    expect(await eventually(async () => (await landed()).length > 0, 60_000)).toBe(true);
    // Retried until it landed, and kept once.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await landed()).toHaveLength(1);
    expect((await notes()).length).toBe(before + 1);
  }, 90_000);
});
