import { expect } from 'vitest';
import { GitClient, repoUrl } from '../support/git.ts';
import type { TestServer } from '../support/server.ts';
import { apiCall, FediverseActor, startFederatedKiln } from './support.ts';

/** A user of a test server, with a token (and a password to sign in on pages). */
export type Account = { handle: string; token: string; password: string };

type Json = Record<string, unknown>;

/**
 * Two federated Kilns: `author` on B owns the public repository `tool` (one commit on `main`,
 * from the working copy `work`), `proposer` on A has forked it; `stranger` is a bare fediverse
 * actor of a third server. `close` ends all of it. `options` sets the servers' environments,
 * `started` runs once both listen, before anything is created (a proxy in front learns its target),
 * and `fork: false` leaves the fork to the test (made while the upstream is away, say).
 */
export async function forkAcross(
  options: {
    envA?: Record<string, string>;
    envB?: Record<string, string>;
    started?: (a: TestServer, b: TestServer) => void;
    fork?: boolean;
  } = {},
) {
  const [a, b] = await Promise.all([
    startFederatedKiln(options.envA),
    startFederatedKiln(options.envB),
  ]);
  options.started?.(a, b);
  const git = await GitClient.create();
  const account = async (server: TestServer): Promise<Account> => {
    const made = await server.make.userWithToken();
    return { handle: made.user.handle, token: made.token, password: made.password };
  };
  const author = await account(b);
  const proposer = await account(a);
  /** Pushes the working copy's HEAD to `ref` of `owner/repo` on `server`. */
  const pushTo = async (server: TestServer, owner: Account, repo: string, ref: string) => {
    const url = repoUrl(server.url, owner.handle, repo, { token: owner.token, as: 'username' });
    await git.ok(['push', '-q', '-f', url, `HEAD:${ref}`], { cwd: work });
  };
  expect((await apiCall(b, author.token, 'POST', '/user/repos', { name: 'tool' })).status).toBe(
    201,
  );
  const work = await git.init();
  await git.commit(work, { 'README.md': 'tool\n' }, 'first');
  await pushTo(b, author, 'tool', 'main');
  if (options.fork !== false) {
    const forked = await apiCall(a, proposer.token, 'POST', '/user/federation/forks', {
      actor: `${b.url}/repos/${author.handle}/tool`,
    });
    expect(forked.status).toBe(201);
  }
  const stranger = new FediverseActor();
  await stranger.start();
  /** Pushes a first commit to `feature` of A's fork and proposes it upstream; its sha. */
  const proposeFeature = async () => {
    await git.ok(['checkout', '-q', '-b', 'feature'], { cwd: work });
    const sha = await git.commit(work, { 'feature.txt': 'one\n' }, 'feature, part one');
    await pushTo(a, proposer, 'tool', 'refs/heads/feature');
    const path = `/repos/${proposer.handle}/tool/federation/pulls`;
    const input = { head: 'feature', base: 'main', title: 'A feature' };
    expect((await apiCall(a, proposer.token, 'POST', path, input)).status).toBe(202);
    return sha;
  };
  /** Comments `body` on `line` of feature.txt in the upstream's pull 1, as its author. */
  const commentUpstream = async (body: string, line: number) => {
    const path = `/repos/${author.handle}/tool/pulls/1/comments`;
    const made = await apiCall(b, author.token, 'POST', path, { body, path: 'feature.txt', line });
    expect(made.status).toBe(201);
  };
  /** The notes A's first proposal holds, as A's API lists them. */
  const proposalNotes = async () => {
    const fork = `/repos/${proposer.handle}/tool/federation/pulls`;
    const [proposal] = (await apiCall(a, proposer.token, 'GET', fork)).json as unknown as Json[];
    const listed = await apiCall(
      a,
      proposer.token,
      'GET',
      `${fork}/${String(proposal?.id)}/comments`,
    );
    return listed.json as unknown as Json[];
  };
  const close = async () => {
    await Promise.all([a.close(), b.close(), stranger.stop()]);
    await git.dispose();
  };
  return {
    ...{ a, b, git, work, author, proposer, stranger },
    ...{ pushTo, proposeFeature, commentUpstream, proposalNotes, close },
  };
}
