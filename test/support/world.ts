import { afterAll, beforeAll } from 'vitest';
import type { Repository } from '../../src/domain/repos/repo.types.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { GitClient } from './git.ts';
import { startTestServer, type TestServer } from './server.ts';

/**
 * The set-up most black-box suites share: a real server, a real git client, people with
 * passwords and tokens, and repositories they own. A suite names what it needs; the world makes
 * it through the domain services (so every invariant holds) and takes it all down again.
 */

/** A person of the world: handles are generated, so two worlds never share one. */
export type Person = { readonly user: User; readonly password: string; readonly token: string };

/** A repository made at start, owned by one of the world's people. */
export type RepoSpec<P extends string, R extends string> = {
  readonly owner: P;
  readonly name: R;
  readonly private?: boolean;
  /** Start with the server's initial commit (a README on `main`) instead of empty. */
  readonly autoInit?: boolean;
};

export type WorldOptions<P extends string, R extends string = never> = {
  /** SERVICE_* settings as an operator writes them; a function is read when the world starts. */
  readonly env?: Record<string, string> | (() => Record<string, string>);
  /** Keys by which the suite names its people; each gets a password and an all-scope token. */
  readonly people?: readonly P[];
  readonly repos?: readonly RepoSpec<P, R>[];
  /** How long starting (with the suite's `ready`) may take, where the hook default is too short. */
  readonly timeoutMs?: number;
};

export type World<P extends string, R extends string = never> = {
  readonly kiln: TestServer;
  /** An isolated git client (own HOME and identity), disposed with the world. */
  readonly git: GitClient;
  readonly people: Readonly<Record<P, Person>>;
  /** The repositories of `repos`, by name. */
  readonly repos: Readonly<Record<R, Repository>>;
  close(): Promise<void>;
};

/** Starts a world; the caller closes it. Prefer `useWorld` for one world per suite. */
export async function startWorld<P extends string = never, R extends string = never>(
  options: WorldOptions<P, R> = {},
): Promise<World<P, R>> {
  const env = typeof options.env === 'function' ? options.env() : options.env;
  const kiln = await startTestServer(env);
  const git = await GitClient.create();
  const close = async () => {
    await git.dispose();
    await kiln.close();
  };
  try {
    const people = {} as Record<P, Person>;
    for (const key of options.people ?? []) people[key] = await kiln.make.userWithToken();
    const repos = {} as Record<R, Repository>;
    for (const spec of options.repos ?? []) {
      const owner = people[spec.owner];
      if (!owner) throw new Error(`repository ${spec.name}: ${spec.owner} is not in people`);
      const { repo } = await kiln.app.services.repos.create(owner.user, {
        name: spec.name,
        private: spec.private === true,
        autoInit: spec.autoInit === true,
      });
      repos[spec.name] = repo;
    }
    return { kiln, git, people, repos, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Something the whole suite shares: started before its first test and handed to `ready` (which
 * keeps what the tests use), stopped after its last. Vitest runs after-hooks in reverse, so what
 * a suite starts later is stopped first.
 */
export function useForSuite<T>(
  start: () => Promise<T>,
  stop: (started: T) => Promise<void>,
  ready: (started: T) => void | Promise<void>,
  timeoutMs?: number,
): void {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
    await ready(started);
  }, timeoutMs);
  afterAll(async () => {
    if (started !== undefined) await stop(started);
  });
}

/** One world for the suite (see `useForSuite`). */
export function useWorld<P extends string = never, R extends string = never>(
  options: WorldOptions<P, R>,
  ready: (world: World<P, R>) => void | Promise<void>,
): void {
  useForSuite(
    () => startWorld(options),
    (world) => world.close(),
    ready,
    options.timeoutMs,
  );
}
