/**
 * Object isolation as a property: whatever sequence of creations, forks (of forks), visibility
 * changes both ways, deletions, re-creations under the same name, pushes and restarts a few
 * repositories go through, no repository serves an object that a reader of it may not read.
 *
 * The model: every commit is pushed to one repository as a root commit of its own branch, so
 * fetching it brings nothing else. A repository legitimately holds what was pushed to it and
 * what the repository it was forked from held then (with what that one borrowed). A reader may
 * read a commit when it is held by the repository being read or by any repository the reader
 * may read now. After every step, each repository is read as its least reader (anonymous when
 * public, its owner when private): no forbidden commit by id over git, nor on the commit page,
 * and nothing forbidden among the `.have`s receive-pack advertises; at the end of each run, no
 * raw file and no archive either. Kiln runs as its own process, so a restart is a real one.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitClient, repoUrl } from '../support/git.ts';
import { auth, Browser } from '../support/http.ts';
import {
  cliUserWithToken,
  type Instance,
  prepareInstance,
  type ServerProcess,
  startServerProcess,
} from './server-process.ts';

const USERS = ['iso-ann', 'iso-bob', 'iso-cy'] as const;
type Reader = number | 'anonymous';

type Repo = {
  readonly owner: number;
  readonly name: string;
  private: boolean;
  /** The repository whose objects it was made to borrow (a fork of a public one). */
  lender: Repo | undefined;
  alive: boolean;
  readonly held: Set<string>;
};

type Step =
  | { kind: 'create'; owner: number; name: number; private: boolean }
  | { kind: 'fork'; repo: number; by: number; name: number }
  | { kind: 'visibility'; repo: number; private: boolean }
  | { kind: 'delete'; repo: number }
  | { kind: 'push'; repo: number }
  | { kind: 'restart' };

const user = fc.integer({ min: 0, max: USERS.length - 1 });
const pick = fc.nat({ max: 50 });
const name = fc.integer({ min: 0, max: 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('create' as const),
      owner: user,
      name,
      private: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('fork' as const), repo: pick, by: user, name }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('visibility' as const),
      repo: pick,
      private: fc.boolean(),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), repo: pick }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('push' as const), repo: pick }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

let instance: Instance;
let tokens: string[];
let git: GitClient;
let server: ServerProcess;
let run = 0;
/** Signed-in page readers of the running server, by user. */
let browsers = new Map<number, Browser>();

beforeAll(async () => {
  instance = await prepareInstance('kiln-isolation-', USERS[0]);
  tokens = [instance.token];
  for (const handle of USERS.slice(1)) tokens.push(await cliUserWithToken(instance.env, handle));
  git = await GitClient.create();
  server = await startServerProcess(instance.env, { cwd: instance.root });
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await git?.dispose();
  await instance?.dispose();
});

function mayRead(reader: Reader, repo: Repo): boolean {
  return !repo.private || repo.owner === reader;
}

/** A fork holds what its parent and the stores the parent borrowed from held then. */
function heldThrough(repo: Repo): Set<string> {
  const held = new Set<string>();
  for (let at: Repo | undefined = repo; at; at = at.lender)
    for (const sha of at.held) held.add(sha);
  return held;
}

async function api(method: string, path: string, as: number, body?: object): Promise<number> {
  const response = await fetch(`${server.url}/api/v1${path}`, {
    method,
    headers: {
      ...auth.token(tokens[as]!),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  await response.arrayBuffer();
  return response.status;
}

function cloneUrl(repo: Repo, reader: Reader): string {
  const owner = USERS[repo.owner]!;
  if (reader === 'anonymous') return repoUrl(server.url, owner, repo.name);
  return repoUrl(server.url, owner, repo.name, { token: tokens[reader]!, as: 'password' });
}

async function browserOf(reader: number): Promise<Browser> {
  let browser = browsers.get(reader);
  if (!browser) {
    browser = new Browser(server.url);
    await browser.get('/login');
    const signedIn = await browser.post('/login', {
      login: USERS[reader]!,
      password: 'correct horse battery',
    });
    expect(signedIn.status).toBe(303);
    browsers.set(reader, browser);
  }
  return browser;
}

/** The status of a page or API answer as `reader` gets it (signed in, for a page). */
async function status(path: string, reader: Reader): Promise<number> {
  const response =
    reader === 'anonymous'
      ? await fetch(`${server.url}${path}`)
      : path.startsWith('/api/')
        ? await fetch(`${server.url}${path}`, { headers: auth.token(tokens[reader]!) })
        : await (await browserOf(reader)).get(path);
  await response.arrayBuffer();
  return response.status;
}

/** A new root commit on a branch of its own in `repo`, pushed by its owner. */
async function push(repo: Repo): Promise<void> {
  const work = await git.init();
  const sha = await git.commit(work, { 'id.txt': `${repo.name} ${Math.random()}\n` });
  await git.ok(['push', '-q', cloneUrl(repo, repo.owner), `HEAD:refs/heads/c-${sha.slice(0, 8)}`], {
    cwd: work,
  });
  repo.held.add(sha);
}

/** Everything `repo` stops borrowing once `lender` lends no more, as Kiln detaches it. */
function withdraw(repos: readonly Repo[], lender: Repo): void {
  for (const repo of repos) {
    if (repo.lender === lender) {
      repo.lender = undefined;
      withdraw(repos, repo);
    }
  }
}

async function apply(repos: Repo[], next: Step): Promise<void> {
  const alive = repos.filter((repo) => repo.alive);
  const taken = (owner: number, repoName: string) =>
    alive.some((repo) => repo.owner === owner && repo.name === repoName);
  const target = 'repo' in next ? alive[next.repo % Math.max(alive.length, 1)] : undefined;
  switch (next.kind) {
    case 'create': {
      const repoName = `r${run}-${next.name}`;
      if (taken(next.owner, repoName)) return;
      expect(
        await api('POST', '/user/repos', next.owner, { name: repoName, private: next.private }),
      ).toBe(201);
      const repo: Repo = {
        owner: next.owner,
        name: repoName,
        private: next.private,
        lender: undefined,
        alive: true,
        held: new Set(),
      };
      repos.push(repo);
      await push(repo);
      return;
    }
    case 'fork': {
      const repoName = `r${run}-${next.name}`;
      if (!target || !mayRead(next.by, target) || taken(next.by, repoName)) return;
      const path = `/repos/${USERS[target.owner]}/${target.name}/forks`;
      expect(await api('POST', path, next.by, { name: repoName })).toBe(202);
      repos.push({
        owner: next.by,
        name: repoName,
        private: target.private,
        lender: target.private ? undefined : target,
        alive: true,
        held: heldThrough(target),
      });
      return;
    }
    case 'visibility': {
      if (!target || target.private === next.private) return;
      const path = `/repos/${USERS[target.owner]}/${target.name}`;
      expect(await api('PATCH', path, target.owner, { private: next.private })).toBe(200);
      target.private = next.private;
      if (next.private) withdraw(repos, target);
      return;
    }
    case 'delete': {
      if (!target) return;
      expect(
        await api('DELETE', `/repos/${USERS[target.owner]}/${target.name}`, target.owner),
      ).toBe(204);
      target.alive = false;
      withdraw(repos, target);
      return;
    }
    case 'push':
      if (target) await push(target);
      return;
    case 'restart':
      await server.stop();
      server = await startServerProcess(instance.env, { cwd: instance.root });
      browsers = new Map();
  }
}

/** The commits of this run that `reader` may not read through `repo`. */
function forbidden(repos: readonly Repo[], repo: Repo, reader: Reader, all: readonly string[]) {
  const readable = new Set(repo.held);
  for (const other of repos) {
    if (other.alive && mayRead(reader, other)) for (const sha of other.held) readable.add(sha);
  }
  return all.filter((sha) => !readable.has(sha));
}

/** The object ids receive-pack advertises, `.have`s of borrowed stores included. */
async function advertised(repo: Repo): Promise<string[]> {
  const owner = USERS[repo.owner]!;
  const response = await fetch(
    `${server.url}/${owner}/${repo.name}.git/info/refs?service=git-receive-pack`,
    {
      headers: auth.basicPassword(tokens[repo.owner]!),
    },
  );
  expect(response.status).toBe(200);
  const text = await response.text();
  return [...text.matchAll(/[0-9a-f]{4}([0-9a-f]{40}) /g)].map((match) => match[1]!);
}

async function check(repos: readonly Repo[], final: boolean): Promise<void> {
  const all = [...new Set(repos.flatMap((repo) => [...repo.held]))];
  for (const repo of repos.filter((each) => each.alive)) {
    const reader: Reader = repo.private ? repo.owner : 'anonymous';
    const page = `/repos/${USERS[repo.owner]}/${repo.name}`;
    // The reader does see what the repository holds: the checks below can fail.
    const [own] = repo.held;
    if (own) expect(await status(`${page}/commit/${own}`, reader)).toBe(200);
    const denied = new Set(forbidden(repos, repo, repo.owner, all));
    for (const sha of await advertised(repo))
      expect(denied.has(sha), `${page} advertises ${sha}`).toBe(false);
    for (const sha of forbidden(repos, repo, reader, all)) {
      expect(await status(`${page}/commit/${sha}`, reader), `${page}/commit/${sha}`).toBe(404);
      const into = await git.init();
      const fetched = await git.run(
        ['-c', 'protocol.version=2', 'fetch', '-q', cloneUrl(repo, reader), sha],
        { cwd: into },
      );
      expect(fetched.code, `${page} serves ${sha} by id`).not.toBe(0);
      if (!final) continue;
      expect(await status(`${page}/raw/${sha}/id.txt`, reader), `${page} raw ${sha}`).toBe(404);
      const archive = `/api/v1/repos/${USERS[repo.owner]}/${repo.name}/archive/${sha}.tar.gz`;
      expect(await status(archive, reader), `${page} archive ${sha}`).toBe(404);
    }
  }
}

describe('object isolation across forks', () => {
  it('no repository serves what its readers may not read, after any step', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.boolean(),
        fc.array(step, { minLength: 3, maxLength: 7 }),
        async (first, steps) => {
          run++;
          const repos: Repo[] = [];
          // Something to fork from the start: a public repository.
          await apply(repos, { kind: 'create', owner: 0, name: 0, private: false });
          if (first) await apply(repos, { kind: 'fork', repo: 0, by: 1, name: 0 });
          for (const next of steps) {
            await apply(repos, next);
            await check(repos, false);
          }
          await check(repos, true);
        },
      ),
      {
        numRuns: Number(process.env.KILN_ISOLATION_RUNS ?? 15),
        endOnFailure: true,
        examples: [
          // A private fork of a fork borrows the first parent; the middle goes, then the
          // first parent turns private and receives a commit.
          [
            false,
            [
              { kind: 'fork', repo: 0, by: 1, name: 1 },
              { kind: 'visibility', repo: 1, private: true },
              { kind: 'fork', repo: 1, by: 1, name: 0 },
              { kind: 'delete', repo: 1 },
              { kind: 'visibility', repo: 0, private: true },
              { kind: 'push', repo: 0 },
            ],
          ],
          // A fork read while it borrowed (its object reader started then), its parent made
          // private and given a commit.
          [
            true,
            [
              { kind: 'push', repo: 1 },
              { kind: 'visibility', repo: 0, private: true },
              { kind: 'push', repo: 0 },
            ],
          ],
          // The parent is deleted and its name reused by a private repository, then a restart.
          [
            true,
            [
              { kind: 'delete', repo: 0 },
              { kind: 'create', owner: 0, name: 0, private: true },
              { kind: 'push', repo: 1 },
              { kind: 'restart' },
            ],
          ],
        ],
      },
    );
  }, 300_000);
});
