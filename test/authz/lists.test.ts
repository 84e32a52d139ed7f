/**
 * Private repositories in lists, search and counts: every list endpoint and listing page, for
 * each of the seven principals, shows a private repository exactly to those who may read it,
 * and `X-Total-Count` counts only what the caller may see.
 */
import { describe, expect, it } from 'vitest';
import { auth, json } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import {
  levelOf,
  type People,
  PRINCIPALS,
  type Principal,
  type Subject,
  type Subjects,
  useAuthzWorld,
} from './world.ts';

const ADMIN = 'listadmin';
let kiln: TestServer;
let people: People;
let subjects: Subjects;

useAuthzWorld(
  { SERVICE_PROTECT_ENABLED: 'false', SERVICE_SECRET_KEY: 'authorization lists secret key' },
  ADMIN,
  (server, principals, shared) => {
    [kiln, people, subjects] = [server, principals, shared];
  },
);

/** Whether `principal` may read the private subject `inOrg` (collaborators are on both). */
function readsPrivate(principal: Principal, inOrg: boolean): boolean {
  if (principal === 'owner') return !inOrg;
  if (principal === 'orgOwner') return inOrg;
  return levelOf(principal, 'private') !== 'none';
}

async function apiList(principal: Principal, path: string) {
  const person = principal === 'anonymous' ? undefined : people[principal];
  const response = await fetch(`${kiln.url}/api/v1${path}`, {
    headers: person ? auth.token(person.token) : {},
  });
  expect(response.status, `${path} as ${principal}`).toBe(200);
  const body = await json(response);
  const items: { full_name: string }[] = Array.isArray(body) ? body : body.data;
  return {
    names: items.map((item) => item.full_name),
    total: response.headers.get('x-total-count'),
  };
}

async function pageText(principal: Principal, path: string): Promise<string> {
  const browser = principal === 'anonymous' ? people.anonymous.browser : people[principal].browser;
  const response = await browser.get(path);
  expect(response.status, `${path} as ${principal}`).toBe(200);
  return response.text();
}

const full = (subject: Subject) => `${subject.owner}/${subject.name}`;

describe('private repositories in lists, search and counts', () => {
  it('REST lists show them to readers only and count only what is shown', async () => {
    const lists = [
      '/repos/search?limit=50',
      '/repos/search?q=private&limit=50',
      '/repos?limit=50',
      `/users/${subjects.own.priv.owner}/repos?limit=50`,
      `/orgs/${subjects.org.priv.owner}/repos?limit=50`,
    ];
    for (const principal of PRINCIPALS) {
      const paths = principal === 'anonymous' ? lists : [...lists, '/user/repos?limit=50'];
      for (const path of paths) {
        const { names, total } = await apiList(principal, path);
        const what = `${path} as ${principal}`;
        for (const inOrg of [false, true]) {
          const priv = full(inOrg ? subjects.org.priv : subjects.own.priv);
          if (!readsPrivate(principal, inOrg)) expect(names, what).not.toContain(priv);
        }
        if (total !== null) expect(Number(total), what).toBe(names.length);
      }
      // Those who may read see them where they belong.
      const search = await apiList(principal, '/repos/search?q=private&limit=50');
      for (const inOrg of [false, true]) {
        const priv = full(inOrg ? subjects.org.priv : subjects.own.priv);
        expect(search.names.includes(priv), `search as ${principal}`).toBe(
          readsPrivate(principal, inOrg),
        );
      }
    }
  });

  it('listing pages and search show them to readers only', async () => {
    const pages = [
      '/explore',
      '/search?q=private',
      `/${subjects.own.priv.owner}`,
      `/${subjects.org.priv.owner}`,
      '/',
    ];
    for (const principal of PRINCIPALS) {
      for (const path of pages) {
        const text = await pageText(principal, path);
        for (const inOrg of [false, true]) {
          const priv = inOrg ? subjects.org.priv : subjects.own.priv;
          if (!readsPrivate(principal, inOrg)) {
            expect(text, `${path} as ${principal}`).not.toContain(priv.name);
          }
        }
      }
    }
  });
});
