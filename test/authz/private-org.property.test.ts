/**
 * Generated sequences of organisation and repository changes (create an organisation public or
 * private, create a repository public or private in it, add or remove a member, flip either
 * visibility). After every step, for every reader, the REST lookup of each repository and the
 * search list (with its count) show exactly what the rule computed here says: a reader sees a
 * repository when they are an admin or a member of its organisation, or when both the
 * organisation and the repository are public.
 */
import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auth, json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { type Person, useForSuite } from '../support/world.ts';

const ADMIN = 'porgpropadmin';
const JOINERS = ['first', 'second'] as const;
type Joiner = (typeof JOINERS)[number];
type Reader = 'anonymous' | 'founder' | Joiner | 'admin';
const READERS: readonly Reader[] = ['anonymous', 'founder', ...JOINERS, 'admin'];

type Step =
  | { kind: 'org'; private: boolean }
  | { kind: 'repo'; org: number; private: boolean }
  | { kind: 'join' | 'leave'; org: number; who: Joiner }
  | { kind: 'flipOrg'; org: number }
  | { kind: 'flipRepo'; repo: number };

type ModelOrg = { name: string; private: boolean; members: Set<Joiner> };
type ModelRepo = { org: ModelOrg; name: string; private: boolean };

/** The rule, computed independently of the server. */
function sees(reader: Reader, repo: ModelRepo): boolean {
  if (reader === 'admin' || reader === 'founder') return true;
  if (reader !== 'anonymous' && repo.org.members.has(reader)) return true;
  return !repo.org.private && !repo.private;
}

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('org' as const), private: fc.boolean() }),
  fc.record({ kind: fc.constant('repo' as const), org: fc.nat(), private: fc.boolean() }),
  fc.record({
    kind: fc.constantFrom('join' as const, 'leave' as const),
    org: fc.nat(),
    who: fc.constantFrom(...JOINERS),
  }),
  fc.record({ kind: fc.constant('flipOrg' as const), org: fc.nat() }),
  fc.record({ kind: fc.constant('flipRepo' as const), repo: fc.nat() }),
);

let kiln: TestServer;
let people: Record<Exclude<Reader, 'anonymous'>, Person>;

useForSuite(
  () => startTestServer({ SERVICE_PROTECT_ENABLED: 'false', SERVICE_ADMIN_HANDLES: ADMIN }),
  (server) => server.close(),
  async (server) => {
    kiln = server;
    people = {
      founder: await server.make.userWithToken(),
      first: await server.make.userWithToken(),
      second: await server.make.userWithToken(),
      admin: await server.make.userWithToken({ handle: ADMIN }),
    };
  },
  60_000,
);

async function get(reader: Reader, path: string) {
  const headers = reader === 'anonymous' ? {} : auth.token(people[reader].token);
  return fetch(`${kiln.url}/api/v1${path}`, { headers });
}

/** Applies one step through the domain services, and to the model. */
async function apply(run: { tag: string; orgs: ModelOrg[]; repos: ModelRepo[] }, s: Step) {
  const { orgs, repos } = kiln.app.services;
  const founder = people.founder.user;
  const org = run.orgs.length > 0 && 'org' in s ? run.orgs[s.org % run.orgs.length] : undefined;
  if (s.kind === 'org') {
    const name = `${run.tag}o${run.orgs.length}`;
    await orgs.createOrg({ name, owner: founder, visibility: s.private ? 'private' : 'public' });
    run.orgs.push({ name, private: s.private, members: new Set() });
  } else if (s.kind === 'repo' && org) {
    const name = `${run.tag}r${run.repos.length}`;
    await repos.create(founder, { name, orgName: org.name, private: s.private });
    run.repos.push({ org, name, private: s.private });
  } else if (s.kind === 'join' && org && !org.members.has(s.who)) {
    await orgs.addMemberByHandle(founder, org.name, people[s.who].user.handle, 'member');
    org.members.add(s.who);
  } else if (s.kind === 'leave' && org?.members.has(s.who)) {
    await orgs.removeMember(founder, org.name, people[s.who].user.handle);
    org.members.delete(s.who);
  } else if (s.kind === 'flipOrg' && org) {
    org.private = !org.private;
    const visibility = org.private ? 'private' : 'public';
    await orgs.updateSettings(founder, org.name, {
      fullName: '',
      description: '',
      website: '',
      visibility,
    });
  } else if (s.kind === 'flipRepo' && run.repos.length > 0) {
    const repo = run.repos[s.repo % run.repos.length] as ModelRepo;
    repo.private = !repo.private;
    await repos.updateSettings(founder, repo.org.name, repo.name, {
      private: repo.private,
    });
  }
}

async function check(run: { tag: string; repos: ModelRepo[] }) {
  for (const reader of READERS) {
    for (const repo of run.repos) {
      const response = await get(reader, `/repos/${repo.org.name}/${repo.name}`);
      await response.arrayBuffer();
      expect(response.status, `${repo.org.name}/${repo.name} as ${reader}`).toBe(
        sees(reader, repo) ? 200 : 404,
      );
    }
    const search = await get(reader, `/repos/search?q=${run.tag}&limit=50`);
    const body = await json(search);
    const names: string[] = body.data.map((item: { full_name: string }) => item.full_name);
    const expected = run.repos.filter((repo) => sees(reader, repo));
    expect(names.sort(), `search as ${reader}`).toEqual(
      expected.map((repo) => `${repo.org.name}/${repo.name}`).sort(),
    );
    expect(search.headers.get('x-total-count'), `count as ${reader}`).toBe(String(expected.length));
  }
}

describe('the visibility of repositories in organisations', () => {
  it('follows the rule after every step of any sequence of changes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        // Names unique to this run, so the search sees only this run's repositories.
        const run = { tag: `t${randomBytes(4).toString('hex')}`, orgs: [], repos: [] };
        for (const s of [{ kind: 'org', private: true } as const, ...steps]) {
          await apply(run, s);
          await check(run);
        }
      }),
      { numRuns: 30 },
    );
  }, 240_000);
});
