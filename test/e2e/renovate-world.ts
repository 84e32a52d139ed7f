import type { User } from '../../src/domain/users/user.types.ts';
import { type GitClient, repoUrl } from '../support/git.ts';
import { auth, type Json } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';

/** A repository made for one Renovate scenario, with a clone of it for reading back. */
export type Seeded = {
  readonly fullName: string;
  readonly owner: string;
  readonly name: string;
  /** A work tree cloned with the owner's token. */
  readonly work: string;
};

/**
 * The people and repositories Renovate works on: a bot account with a token (Renovate's
 * identity) and another person who owns the private repositories and adds the bot as a write
 * collaborator. Everything is set up and read back through Kiln's API and real git.
 */
export class World {
  readonly kiln: TestServer;
  readonly git: GitClient;
  readonly bot: User;
  readonly botToken: string;
  readonly owner: User;
  readonly ownerToken: string;

  private constructor(
    kiln: TestServer,
    git: GitClient,
    people: { bot: User; botToken: string; owner: User; ownerToken: string },
  ) {
    this.kiln = kiln;
    this.git = git;
    this.bot = people.bot;
    this.botToken = people.botToken;
    this.owner = people.owner;
    this.ownerToken = people.ownerToken;
  }

  static async create(kiln: TestServer, git: GitClient): Promise<World> {
    // Renovate writes commits as "<full_name> <email>" of GET /user: give the bot both.
    const { user: bot } = await kiln.make.user({ fullName: 'Renovate Bot' });
    const botToken = await kiln.make.token(bot);
    const { user: owner, token: ownerToken } = await kiln.make.userWithToken();
    return new World(kiln, git, { bot, botToken, owner, ownerToken });
  }

  /** `/api/v1` as the owner; throws on anything but `expected`. */
  async api(path: string, expected: number, init: { method?: string; body?: unknown } = {}) {
    const response = await fetch(`${this.kiln.url}/api/v1${path}`, {
      method: init.method ?? 'GET',
      headers: { ...auth.token(this.ownerToken), 'content-type': 'application/json' },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await response.text();
    if (response.status !== expected) {
      throw new Error(`${init.method ?? 'GET'} ${path}: ${response.status} ${text}`);
    }
    return text === '' ? null : (JSON.parse(text) as Json);
  }

  /**
   * A private repository `{prefix}-…` of the owner with the bot as write collaborator, and
   * `files` committed on `main` over smart HTTP.
   */
  async seed(prefix: string, files: Record<string, string>): Promise<Seeded> {
    const name = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
    const owner = this.owner.handle;
    await this.api('/user/repos', 201, {
      method: 'POST',
      body: { name, private: true, auto_init: true },
    });
    await this.api(`/repos/${owner}/${name}/collaborators/${this.bot.handle}`, 204, {
      method: 'PUT',
      body: { permission: 'write' },
    });
    const work = await this.git.clone(this.url(owner, name));
    await this.git.commit(work, files, 'Add the project manifest');
    await this.git.ok(['push', '-q', 'origin', 'HEAD:main'], { cwd: work });
    return { fullName: `${owner}/${name}`, owner, name, work };
  }

  url(owner: string, name: string): string {
    return repoUrl(this.kiln.url, owner, name, { token: this.ownerToken, as: 'username' });
  }

  /** Every pull request of the repository, any state. */
  pulls(repo: Seeded): Promise<Json[]> {
    return this.api(`/repos/${repo.owner}/${repo.name}/pulls?state=all&limit=50`, 200);
  }

  pull(repo: Seeded, number: number): Promise<Json> {
    return this.api(`/repos/${repo.owner}/${repo.name}/pulls/${number}`, 200);
  }

  /** Merges as the owner would, through the API. */
  async merge(repo: Seeded, number: number): Promise<void> {
    await this.api(`/repos/${repo.owner}/${repo.name}/pulls/${number}/merge`, 200, {
      method: 'POST',
      body: { Do: 'merge' },
    });
  }

  /** Branch name to tip, as git sees the repository. */
  async branches(repo: Seeded): Promise<Record<string, string>> {
    const out = await this.git.ok(['ls-remote', '--heads', this.url(repo.owner, repo.name)]);
    const tips: Record<string, string> = {};
    for (const line of out.split('\n').filter(Boolean)) {
      const [sha, ref] = line.split('\t') as [string, string];
      tips[ref.replace(/^refs\/heads\//, '')] = sha;
    }
    return tips;
  }

  /** A file at `rev` (a commit, or a branch as it is on the server now), read with git. */
  async show(repo: Seeded, rev: string, file: string): Promise<string> {
    await this.git.ok(['fetch', '-q', '--prune', 'origin', '+refs/heads/*:refs/remotes/origin/*'], {
      cwd: repo.work,
    });
    const object = /^[0-9a-f]{40}$/.test(rev) ? rev : `origin/${rev}`;
    return this.git.ok(['show', `${object}:${file}`], { cwd: repo.work });
  }
}
