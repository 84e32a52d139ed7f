import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.ts';
import type { GitClient } from '../support/git.ts';
import { Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Account, forkAcross } from './fork-across.ts';
import { AP, apiCall, type FediverseActor } from './support.ts';

type Json = Record<string, unknown>;

/**
 * A user of A forks a repository of B and proposes a branch of the fork back: B opens a pull
 * request by A's user, A sees it accepted with its URL; what B cannot take is refused.
 */
describe('pull requests proposed across two Kiln instances', () => {
  let a: TestServer;
  let b: TestServer;
  let git: GitClient;
  let work: string;
  let author: Account;
  let proposer: Account;
  let stranger: FediverseActor;
  let pushTo: Awaited<ReturnType<typeof forkAcross>>['pushTo'];
  let close: (() => Promise<void>) | undefined;

  const call = apiCall;
  const proposals = async () =>
    (await call(a, proposer.token, 'GET', `/repos/${proposer.handle}/tool/federation/pulls`))
      .json as unknown as Json[];
  const answered = async (id: unknown) => {
    let found: Json | undefined;
    await eventually(async () => {
      found = (await proposals()).find((pull) => pull.id === id);
      return found?.state !== 'pending';
    }, 30_000);
    return found;
  };

  beforeAll(async () => {
    const world = await forkAcross();
    ({ a, b, git, work, author, proposer, stranger, pushTo, close } = world);
    expect(
      (await call(b, author.token, 'POST', '/user/repos', { name: 'secret', private: true }))
        .status,
    ).toBe(201);
    await pushTo(b, author, 'secret', 'main');
  });
  afterAll(() => close?.());

  it('proposes a branch: pending, then open upstream with the remote author', async () => {
    await git.ok(['checkout', '-q', '-b', 'feature'], { cwd: work });
    const sha = await git.commit(work, { 'feature.txt': 'new\n' }, 'add a feature');
    await pushTo(a, proposer, 'tool', 'refs/heads/feature');
    const proposed = await call(
      a,
      proposer.token,
      'POST',
      `/repos/${proposer.handle}/tool/federation/pulls`,
      { head: 'feature', base: 'main', title: 'Add a feature', body: 'Please take it.' },
    );
    expect(proposed.status).toBe(202);
    expect(proposed.json).toMatchObject({
      head: 'feature',
      base: 'main',
      title: 'Add a feature',
      state: 'pending',
      url: null,
      upstream: `${b.url}/repos/${author.handle}/tool`,
    });
    const done = await answered(proposed.json.id);
    expect(done?.state).toBe('open');
    expect(done?.url).toBe(`${b.url}/${author.handle}/tool/pulls/1`);

    const login = `${proposer.handle}@${new URL(a.url).host}`;
    const actor = `${a.url}/${proposer.handle}`;
    const pull = await call(b, author.token, 'GET', `/repos/${author.handle}/tool/pulls/1`);
    expect(pull.status).toBe(200);
    expect(pull.json.title).toBe('Add a feature');
    expect(pull.json.body).toBe('Please take it.');
    expect((pull.json.head as Json).sha).toBe(sha);
    expect((pull.json.base as Json).ref).toBe('main');
    expect(pull.json.user).toMatchObject({ login, html_url: actor });
    const list = await call(b, author.token, 'GET', `/repos/${author.handle}/tool/pulls`);
    expect((list.json as unknown as Json[]).map((p) => (p.user as Json).login)).toEqual([login]);
    const listPage = await (await fetch(`${b.url}/${author.handle}/tool/pulls`)).text();
    expect(listPage).toContain(`href="${actor}" rel="nofollow">@${login}</a>`);
    const pullPage = await (await fetch(`${b.url}/${author.handle}/tool/pulls/1`)).text();
    expect(pullPage).toContain(`href="${actor}" rel="nofollow">@${login}</a>`);
    // The remote author is no one here: no profile, no sign-in, not a person of this server.
    expect((await fetch(`${b.url}/api/v1/users/${encodeURIComponent(login)}`)).status).toBe(404);
    expect((await fetch(`${b.url}/api/v1/users/kiln-federation`)).status).toBe(404);
  });

  it('the account remote pulls are filed under never acts and is never granted anything', async () => {
    const collaborator = await call(
      b,
      author.token,
      'PUT',
      `/repos/${author.handle}/tool/collaborators/kiln-federation`,
      { permission: 'write' },
    );
    expect(collaborator.status).toBeGreaterThanOrEqual(400);
    expect(collaborator.status).toBeLessThan(500);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('kiln-federation', 'KILN-FEDERATION', 'kiln-federation@noreply.invalid'),
        fc.string({ maxLength: 40 }),
        async (login, password) => {
          const basic = Buffer.from(`${login}:${password}`).toString('base64');
          const response = await fetch(`${b.url}/api/v1/user`, {
            headers: { authorization: `Basic ${basic}` },
          });
          expect(response.status).toBe(401);
        },
      ),
      { numRuns: 15 },
    );
  });

  it('"Propose to upstream" on the fork\'s page proposes a branch, for its writers only', async () => {
    await git.ok(['checkout', '-q', '-b', 'from-page', 'main'], { cwd: work });
    await git.commit(work, { 'page.txt': 'page\n' }, 'from the page');
    await pushTo(a, proposer, 'tool', 'refs/heads/from-page');
    const page = `/repos/${proposer.handle}/tool`;
    expect(await (await new Browser(a.url).get(page)).text()).not.toContain('Propose to upstream');
    const browser = new Browser(a.url);
    await browser.get('/login');
    await browser.post('/login', { login: proposer.handle, password: proposer.password });
    expect(await (await browser.get(page)).text()).toContain('Propose to upstream');
    const missing = await browser.post(`${page}/propose-upstream`, {
      head: 'nope',
      base: 'main',
      title: 'Nope',
    });
    // Refused with the reason on the fork's page; nothing is proposed.
    expect(missing.status).toBe(303);
    expect((await proposals()).some((pull) => pull.title === 'Nope')).toBe(false);
    const proposed = await browser.post(`${page}/propose-upstream`, {
      head: 'from-page',
      base: 'main',
      title: 'From the page',
    });
    expect(proposed.status).toBe(303);
    const mine = (await proposals()).find((pull) => pull.title === 'From the page');
    expect((await answered(mine?.id))?.state).toBe('open');
  });

  it('merged or closed upstream, the proposal shows merged or closed on the author’s side', async () => {
    const stateOf = async (title: string) =>
      (await proposals()).find((pull) => pull.title === title)?.state;
    const merged = await call(
      b,
      author.token,
      'POST',
      `/repos/${author.handle}/tool/pulls/1/merge`,
      {
        Do: 'merge',
      },
    );
    expect(merged.status).toBe(200);
    expect(await eventually(async () => (await stateOf('Add a feature')) === 'merged')).toBe(true);
    const closed = await call(b, author.token, 'PATCH', `/repos/${author.handle}/tool/pulls/2`, {
      state: 'closed',
    });
    expect(closed.status).toBe(201);
    expect(await eventually(async () => (await stateOf('From the page')) === 'closed')).toBe(true);
    const closedOne = (await proposals()).find((pull) => pull.title === 'From the page');
    expect(closedOne?.reason).toBe('closed without merging');
    // The fork's page lists what it proposed, with where each stands and its page upstream.
    const forkPage = await (await fetch(`${a.url}/${proposer.handle}/tool`)).text();
    expect(forkPage).toContain('Proposed to the upstream');
    expect(forkPage).toContain(
      `<a href="${b.url}/${author.handle}/tool/pulls/1" rel="nofollow">Add a feature</a> <span class="Label">merged</span>`,
    );
  });

  it('the repository actor names itself as sendPatchesTo', async () => {
    const actor = (await (
      await fetch(`${b.url}/repos/${author.handle}/tool`, { headers: { accept: AP } })
    ).json()) as Json;
    expect(actor.sendPatchesTo).toBe(`${b.url}/repos/${author.handle}/tool`);
  });

  it('refuses on the author’s side what no upstream would take', async () => {
    const path = `/repos/${proposer.handle}/tool/federation/pulls`;
    const nothing = await call(a, proposer.token, 'POST', path, {
      head: 'main',
      base: 'main',
      title: 'Nothing',
    });
    expect(nothing.status).toBe(422);
    const missing = await call(a, proposer.token, 'POST', path, {
      head: 'no-such-branch',
      base: 'main',
      title: 'Missing',
    });
    expect(missing.status).toBe(422);
    await git.ok(['checkout', '-q', '-b', 'huge', 'main'], { cwd: work });
    await git.commitMany(work, 251, 'many');
    await pushTo(a, proposer, 'tool', 'refs/heads/huge');
    const huge = await call(a, proposer.token, 'POST', path, {
      head: 'huge',
      base: 'main',
      title: 'Too many commits',
    });
    expect(huge.status).toBe(422);
    expect(String(huge.json.message)).toContain('250 commits');
    // Someone who may not push to the fork may not propose from it either.
    const other = await a.make.userWithToken();
    const foreign = await call(a, other.token, 'POST', path, {
      head: 'feature',
      base: 'main',
      title: 'Not mine',
    });
    expect([403, 404]).toContain(foreign.status);
    const notFork = await call(a, proposer.token, 'POST', '/user/repos', { name: 'own' });
    expect(notFork.status).toBe(201);
    const own = await call(
      a,
      proposer.token,
      'POST',
      `/repos/${proposer.handle}/own/federation/pulls`,
      {
        head: 'main',
        base: 'main',
        title: 'x',
      },
    );
    expect(own.status).toBe(404);
  });

  it('rejects offers it cannot take, with the reason', async () => {
    const inbox = `${b.url}/federation/repos/${author.handle}/tool/inbox`;
    const strangerHost = stranger.id.replace('/actor', '');
    const offer = (id: string, target: string, origin: string, object?: Json) => ({
      '@context': ['https://www.w3.org/ns/activitystreams', 'https://forgefed.org/ns'],
      id: `${stranger.id}#offer/${id}`,
      type: 'Offer',
      actor: stranger.id,
      target,
      object: object ?? {
        type: 'Ticket',
        attributedTo: stranger.id,
        summary: 'A change',
        attachment: {
          type: 'Offer',
          origin: { type: 'Branch', context: origin, ref: 'refs/heads/main' },
          target: { type: 'Branch', context: target, ref: 'refs/heads/main' },
        },
      },
    });
    const tool = `${b.url}/repos/${author.handle}/tool`;
    const cases = [
      offer('private', `${b.url}/repos/${author.handle}/secret`, `${strangerHost}/repos/x/y`),
      offer('unknown-origin', tool, `${strangerHost}/repos/x/y`),
      offer('other-host-origin', tool, `${a.url}/repos/${proposer.handle}/tool`),
      offer('not-a-ticket', tool, '', { type: 'Note', content: 'hello' }),
    ];
    for (const activity of cases) {
      expect((await stranger.send(inbox, activity)).status).toBeLessThan(300);
    }
    const rejects = () =>
      stranger.received.map((r) => r.activity).filter((activity) => activity.type === 'Reject');
    expect(await eventually(async () => rejects().length === cases.length, 30_000)).toBe(true);
    for (const activity of cases) {
      const reject = rejects().find((r) => r.object === activity.id);
      expect(reject, String(activity.id)).toBeDefined();
      expect(typeof reject?.summary).toBe('string');
      expect(reject?.to).toEqual([stranger.id]);
    }
    const secretReject = rejects().find((r) => r.object === cases[0]?.id);
    // Private and missing look the same: the server itself answers, naming nothing.
    expect(secretReject?.actor).toBe(`${b.url}/federation/actor`);
    const pulls = await call(
      b,
      author.token,
      'GET',
      `/repos/${author.handle}/tool/pulls?state=all`,
    );
    const posters = (pulls.json as unknown as Json[]).map((pull) => (pull.user as Json).login);
    expect(posters).not.toContain(`tester@${new URL(stranger.id).host}`);
  });
});
