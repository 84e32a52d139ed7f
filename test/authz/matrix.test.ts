/**
 * The authorization matrix: every registered route (REST, git transport, archives, pages and
 * forms) × seven principals (anonymous, a stranger, read and write collaborators, the owner, an
 * organisation's owner, a site admin) × public and private repositories. Exactly the allowed
 * cells succeed; a private repository answers those who may not see it exactly as a repository
 * that does not exist answers (404, or git's 401 challenge to anonymous clients). The route list
 * is read from the running server, so a route added without a table entry fails here. Lists,
 * search and counts are checked in lists.test.ts; the MCP tools, which are not HTTP routes, in
 * mcp.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { OPERATOR } from '../../src/domain/runners/runner.policy.ts';
import { auth } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { registeredRoutes } from './routes.ts';
import { type Need, type Probe, type ProbeContext, TABLE } from './table.ts';
import {
  levelOf,
  makeSubject,
  type People,
  PRINCIPALS,
  type Principal,
  type Subject,
  type Subjects,
  subjectOf,
  useAuthzWorld,
  type Visibility,
} from './world.ts';

const ADMIN = 'authzadmin';
let kiln: TestServer;
let people: People;
let shared: Subjects;
let serial = 0;

useAuthzWorld(
  { SERVICE_PROTECT_ENABLED: 'false', SERVICE_SECRET_KEY: 'authorization matrix secret key' },
  ADMIN,
  (server, principals, subjects) => {
    [kiln, people, shared] = [server, principals, subjects];
  },
);

function allowed(need: Need, principal: Principal, visibility: Visibility): boolean {
  const level = levelOf(principal, visibility);
  const user = principal !== 'anonymous';
  switch (need) {
    case 'anyone':
      return true;
    case 'user':
      return user;
    case 'read':
      return level !== 'none';
    case 'user+read':
      return user && level !== 'none';
    case 'write':
      return user && (level === 'write' || level === 'admin');
    case 'admin':
      return user && level === 'admin';
    case 'org-admin':
      return principal === 'orgOwner' || principal === 'admin';
    case 'site-admin':
      return principal === 'admin';
    case 'owner-only':
      return principal === 'owner';
    case 'self-or-admin':
      return principal === 'owner' || principal === 'admin';
  }
}

async function context(principal: Principal, subject: Subject): Promise<ProbeContext> {
  const { services } = kiln.app;
  const [ownerToken] = await services.tokens.list(people.owner.user);
  const { token, record } = await services.runnerAdmin.createToken(OPERATOR, { kind: 'instance' });
  const { runner } = await services.runners.register({
    token,
    name: 'shared',
    version: 'v1',
    labels: [],
    ephemeral: false,
    capabilities: [],
  });
  return {
    subject,
    principal,
    org: people.org,
    ownerHandle: people.owner.user.handle,
    otherHandle: people.other.user.handle,
    writerHandle: people.writer.user.handle,
    readerHandle: people.reader.user.handle,
    adminHandle: ADMIN,
    ownerTokenId: ownerToken?.id ?? (await kiln.make.token(people.owner.user)),
    instanceTokenId: record.id,
    instanceRunnerId: runner.id,
    unique: (prefix) => `${prefix}${serial++}`,
  };
}

async function send(probe: Probe, principal: Principal, c: ProbeContext): Promise<number> {
  const path = probe.path(c);
  const body = probe.body?.(c);
  const person = principal === 'anonymous' ? undefined : people[principal];
  if (probe.surface === 'page' || probe.surface === 'form') {
    const browser =
      principal === 'anonymous' ? people.anonymous.browser : people[principal].browser;
    const response =
      probe.surface === 'page'
        ? await browser.get(path)
        : await browser.post(
            path,
            Object.fromEntries(Object.entries(body ?? {}).map(([k, v]) => [k, String(v)])),
          );
    await response.arrayBuffer();
    return response.status;
  }
  const headers: Record<string, string> = {};
  let payload: string | undefined;
  if (probe.surface === 'git') {
    if (person) Object.assign(headers, auth.basicPassword(person.token));
    if (probe.method === 'POST') {
      headers['content-type'] = `application/x-${path.split('/').pop()}-request`;
      payload = '0000';
    }
  } else {
    if (person) Object.assign(headers, auth.token(person.token));
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(body);
    }
  }
  const response = await fetch(kiln.url + path, {
    method: probe.method,
    headers,
    body: payload,
    redirect: 'manual',
  });
  await response.arrayBuffer();
  return response.status;
}

/**
 * Whether a refusal of a private thing also refuses: the same answer as for a missing repository
 * that is not a success (404; a redirect made before anything is looked up; git's 401 challenge).
 */
function refuses(status: number): boolean {
  return status >= 300;
}

const DENIED: Record<Probe['surface'], readonly number[]> = {
  api: [401, 403, 404],
  git: [401, 403, 404],
  page: [303, 401, 403, 404],
  form: [303, 401, 403, 404],
};

async function check(key: string, probe: Probe): Promise<string[]> {
  const failures: string[] = [];
  for (const visibility of ['public', 'private'] as const) {
    // Refusals first, on the shared subjects; then the allowed, each on a fresh subject when
    // success would change it.
    const order = [...PRINCIPALS].sort(
      (a, b) =>
        Number(allowed(probe.need, a, visibility)) - Number(allowed(probe.need, b, visibility)),
    );
    for (const principal of order) {
      const inOrg = principal === 'orgOwner';
      const may = allowed(probe.need, principal, visibility);
      const subject =
        may && probe.fresh
          ? await makeSubject(kiln, people, visibility, inOrg)
          : subjectOf(shared, visibility, inOrg);
      const c = await context(principal, subject);
      const before = await probe.measure?.(c, kiln.app);
      const status = await send(probe, principal, c);
      const cell = `${key} ${probe.method} ${probe.path(c)} as ${principal} on ${visibility}`;
      if (probe.measure && ((await probe.measure(c, kiln.app)) !== before) !== may) {
        failures.push(`${cell}: ${may ? 'nothing changed' : 'it changed'}`);
      }
      if (may) {
        if (!probe.ok.includes(status))
          failures.push(`${cell}: ${status}, expected ${probe.ok.join('/')}`);
        continue;
      }
      if (probe.scoped && levelOf(principal, visibility) === 'none') {
        const ghost = await send(probe, principal, {
          ...c,
          subject: { ...subject, name: `ghost${subject.name}` },
        });
        if (status !== ghost || !refuses(ghost)) {
          failures.push(`${cell}: ${status} but a missing repository answers ${ghost}`);
        }
        continue;
      }
      if (!DENIED[probe.surface].includes(status))
        failures.push(`${cell}: ${status}, expected a refusal`);
    }
  }
  return failures;
}

describe('authorization matrix', () => {
  it('has an entry for every registered route', () => {
    const missing = registeredRoutes(kiln.server)
      .map((route) => `${route.method} ${route.url}`)
      .filter((key) => !(key in TABLE));
    expect(missing).toEqual([]);
  });

  for (const [key, entry] of Object.entries(TABLE)) {
    if ('skip' in entry) continue;
    it(key, async () => {
      const failures: string[] = [];
      for (const probe of entry.probes) failures.push(...(await check(key, probe)));
      expect(failures).toEqual([]);
    }, 120_000);
  }
});
