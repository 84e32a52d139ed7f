/**
 * The people and repositories of the authorization matrix. Seven principals: nobody signed in,
 * a stranger, a read and a write collaborator, the owner, the owner of an organisation and a
 * site admin. Each subject repository (public or private, owned by `owner` or by the
 * organisation) has a branch, an open pull with a review comment, a release, a protected branch
 * CI settings and a webhook with one delivery, so that every route has something real to act on.
 */

import { OPERATOR } from '../../src/domain/runners/runner.policy.ts';
import type { User } from '../../src/domain/users/user.types.ts';
import { commitFiles } from '../../src/git/test-support.ts';
import { foldId } from '../../src/lib/ids.ts';
import { signIn } from '../replicas/support.ts';
import { insertRunWithJob } from '../support/ci-rows.ts';
import { Browser } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { useWorld } from '../support/world.ts';

export const PRINCIPALS = [
  'anonymous',
  'other',
  'reader',
  'writer',
  'owner',
  'orgOwner',
  'admin',
] as const;
export type Principal = (typeof PRINCIPALS)[number];
export type Visibility = 'public' | 'private';
export type Level = 'none' | 'read' | 'write' | 'admin';

export type Person = {
  readonly user: User;
  readonly token: string;
  /** Signed in through the real form; anonymous has a browser with only a CSRF cookie. */
  readonly browser: Browser;
};

export type People = Record<Exclude<Principal, 'anonymous'>, Person> & {
  readonly anonymous: { readonly browser: Browser };
  readonly org: string;
};

/** One subject repository and the ids of the things in it. */
export type Subject = {
  readonly owner: string;
  readonly name: string;
  readonly visibility: Visibility;
  readonly pull: number;
  readonly commentId: number;
  readonly releaseId: number;
  readonly sha: string;
  readonly ciTokenId: string;
  readonly runnerId: string;
  /** Workflow runs by number: one that failed (with its job) and one still running. */
  readonly runs: { readonly failed: number; readonly running: number; readonly failedJob: number };
  /** A repository hook's number and one delivery of it, for the webhook pages. */
  readonly hookId: number;
  readonly deliveryId: string;
};

let serial = 0;

export async function makePeople(kiln: TestServer, adminHandle: string): Promise<People> {
  const person = async (handle?: string): Promise<Person> => {
    const { user, password, token } = await kiln.make.userWithToken(handle ? { handle } : {});
    return { user, token, browser: await signIn(kiln.url, user.handle, password) };
  };
  const anonymous = new Browser(kiln.url);
  await anonymous.get('/login');
  const [other, reader, writer, owner, orgOwner, admin] = [
    await person(),
    await person(),
    await person(),
    await person(),
    await person(),
    await person(adminHandle),
  ];
  const org = await kiln.make.org(orgOwner.user);
  return {
    anonymous: { browser: anonymous },
    other,
    reader,
    writer,
    owner,
    orgOwner,
    admin,
    org: org.handle,
  };
}

/**
 * A fresh subject repository: owned by `owner`, or by the organisation for the organisation's
 * owner to act on; the collaborators are added either way.
 */
export async function makeSubject(
  kiln: TestServer,
  people: People,
  visibility: Visibility,
  inOrg: boolean,
): Promise<Subject> {
  const { services } = kiln.app;
  const actor = inOrg ? people.orgOwner.user : people.owner.user;
  const name = `${visibility}-${inOrg ? 'org' : 'own'}-${serial++}`;
  const { repo } = await services.repos.create(actor, {
    name,
    private: visibility === 'private',
    autoInit: true,
    ...(inOrg ? { orgName: people.org } : {}),
  });
  const owner = repo.owner.handle;
  await services.collaborators.put(actor, owner, name, people.reader.user.handle, 'read');
  await services.collaborators.put(actor, owner, name, people.writer.user.handle, 'write');
  const dir = services.repos.handle(repo).path;
  const main = await commitFiles(dir, { branch: 'main', files: { 'a.txt': 'a\n' } });
  await commitFiles(dir, { branch: 'topic', parents: [main], files: { 'b.txt': 'b\n' } });
  await commitFiles(dir, { branch: 'feature', parents: [main], files: { 'c.txt': 'c\n' } });
  const { pull } = await services.pulls.create(actor, owner, name, {
    title: 'topic',
    head: 'topic',
    base: 'main',
  });
  const { comment } = await services.reviewComments.create(actor, owner, name, pull.number, {
    body: 'looks fine',
    path: 'b.txt',
    line: 1,
  });
  const { release } = await services.releases.create(actor, owner, name, {
    tagName: 'v1',
    targetCommitish: 'main',
  });
  // A tag without a release, which writers may delete.
  await services.tags.create(actor, owner, name, { tagName: 'v0', target: 'main' });
  await services.protectedBranches.create(actor, owner, name, 'stable');
  const ci = { repoId: repo.id, isRepoAdmin: true };
  await services.ciSecrets.put(ci, 'DEPLOY', 'secret value');
  await services.ciVariables.put(ci, 'MODE', 'fast');
  const { token, record } = await services.runnerAdmin.createToken(OPERATOR, {
    kind: 'repository',
    repoId: repo.id,
  });
  const { runner } = await services.runners.register({
    token,
    name: 'box',
    version: 'v1',
    labels: ['x'],
    ephemeral: false,
    capabilities: [],
  });
  const hooks = { kind: 'repo', id: repo.id } as const;
  const hook = await services.webhooks.create(hooks, {
    type: 'gitea',
    url: 'https://hooks.example/x',
    active: false,
  });
  await services.webhooks.sendTest(actor, owner, name, hook.wireId);
  const [delivery] = await services.webhooks.deliveries(hooks, hook.wireId);
  return {
    owner,
    name,
    visibility,
    pull: pull.number,
    commentId: foldId(comment.id),
    releaseId: foldId(release.id),
    sha: main,
    ciTokenId: record.id,
    runnerId: runner.id,
    runs: await seedRuns(kiln, repo.id, main),
    hookId: hook.wireId,
    deliveryId: delivery?.id ?? '',
  };
}

/**
 * Two workflow runs of the repository, written straight to the tables (these suites ask who may
 * see and change a run, not how one starts): run 1 failed with one job, run 2 is running.
 */
async function seedRuns(kiln: TestServer, repoId: string, sha: string) {
  const { db } = kiln.app.database;
  const failed = await insertRunWithJob(
    db,
    { repoId, number: 1, status: 'FAILURE', sha },
    { status: 'failure' },
  );
  await insertRunWithJob(db, { repoId, number: 2, status: 'RUNNING', sha }, { status: 'running' });
  return { failed: 1, running: 2, failedJob: failed.taskId };
}

/** The access a principal has to a subject made for it (`orgOwner` acts on org subjects). */
export function levelOf(principal: Principal, visibility: Visibility): Level {
  switch (principal) {
    case 'owner':
    case 'orgOwner':
    case 'admin':
      return 'admin';
    case 'writer':
      return 'write';
    case 'reader':
      return 'read';
    default:
      return visibility === 'public' ? 'read' : 'none';
  }
}

/** The four subjects every suite shares: public and private, owned by `owner` and by the org. */
export type Subjects = {
  readonly own: { readonly pub: Subject; readonly priv: Subject };
  readonly org: { readonly pub: Subject; readonly priv: Subject };
};

export async function makeSubjects(kiln: TestServer, people: People): Promise<Subjects> {
  const make = (visibility: Visibility, inOrg: boolean) =>
    makeSubject(kiln, people, visibility, inOrg);
  return {
    own: { pub: await make('public', false), priv: await make('private', false) },
    org: { pub: await make('public', true), priv: await make('private', true) },
  };
}

/** The shared subject of that visibility and owner. */
export function subjectOf(subjects: Subjects, visibility: Visibility, inOrg: boolean): Subject {
  const side = inOrg ? subjects.org : subjects.own;
  return visibility === 'public' ? side.pub : side.priv;
}

/**
 * A server (with `env`; `adminHandle` is its site admin), the seven principals and the shared
 * subjects, for the whole suite: seeding them takes a while, hence the long start.
 */
export function useAuthzWorld(
  env: Record<string, string>,
  adminHandle: string,
  ready: (kiln: TestServer, people: People, subjects: Subjects) => void,
): void {
  useWorld(
    { env: { ...env, SERVICE_ADMIN_HANDLES: adminHandle }, timeoutMs: 120_000 },
    async ({ kiln }) => {
      const people = await makePeople(kiln, adminHandle);
      ready(kiln, people, await makeSubjects(kiln, people));
    },
  );
}
