import type { User } from '../../src/domain/users/user.types.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { auth, type Json, json } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';

/** A repository with a clone and a token, the usual starting point of a pull request test. */
export type PullWorld = {
  readonly kiln: TestServer;
  readonly git: GitClient;
  readonly owner: User;
  readonly token: string;
  readonly name: string;
  /** A work tree cloned from the repository, on `main`. */
  readonly work: string;
  readonly url: string;
  api(
    path: string,
    init?: { method?: string; body?: unknown; token?: string },
  ): Promise<{ status: number; body: Json }>;
  /** Commits `files` on `branch` (created from `from`, default main) and pushes it. */
  pushBranch(branch: string, files: Record<string, string>, from?: string): Promise<string>;
  openPull(head: string, base?: string, title?: string): Promise<Json>;
};

/**
 * Resolves once Kiln has handled the next push to repository `name`: listeners run in the order
 * they subscribed, so when this one runs, Kiln's own (pull heads, the repository record) have.
 */
function pushHandled(kiln: TestServer, name: string): Promise<void> {
  return new Promise((resolve) => {
    const unsubscribe = kiln.app.events.subscribe('push', async ({ repo }) => {
      if (repo.name !== name) return;
      unsubscribe();
      resolve();
    });
  });
}

export async function pullWorld(kiln: TestServer, git: GitClient): Promise<PullWorld> {
  const { user: owner, token } = await kiln.make.userWithToken();
  const name = `repo${Math.random().toString(36).slice(2, 8)}`;
  const api: PullWorld['api'] = async (path, init = {}) => {
    const response = await fetch(`${kiln.url}/api/v1${path}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { ...auth.token(init.token ?? token), 'content-type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : JSON.parse(text) };
  };
  const created = await api('/user/repos', { body: { name, auto_init: true } });
  if (created.status !== 201)
    throw new Error(`repository not created: ${JSON.stringify(created.body)}`);
  const url = repoUrl(kiln.url, owner.handle, name, { token, as: 'username' });
  const work = await git.clone(url);
  const world: PullWorld = {
    kiln,
    git,
    owner,
    token,
    name,
    work,
    url,
    api,
    async pushBranch(branch, files, from = 'main') {
      await git.ok(['fetch', '-q', 'origin'], { cwd: work });
      await git.ok(['checkout', '-q', '-B', branch, `origin/${from}`], { cwd: work });
      const sha = await git.commit(work, files, `change on ${branch}`);
      const handled = pushHandled(kiln, name);
      await git.ok(['push', '-q', '-f', 'origin', `${branch}:${branch}`], { cwd: work });
      // Kiln reacts to a push after receive-pack exits, which can come after git returns: a pull
      // opened or edited before then could be touched by it afterwards.
      await handled;
      return sha;
    },
    async openPull(head, base = 'main', title = `Pull ${head}`) {
      const response = await api(`/repos/${owner.handle}/${name}/pulls`, {
        body: { title, head, base, body: '' },
      });
      if (response.status !== 201)
        throw new Error(`pull not created: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body;
    },
  };
  return world;
}

export { json };
