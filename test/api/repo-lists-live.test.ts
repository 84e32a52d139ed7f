/**
 * Every list of repositories writes each item exactly as `GET /repos/{owner}/{name}` writes it
 * for the same caller, byte for byte, and keeps doing so as things change: an empty repository
 * pushed to, a default branch changed, a repository turned private, a fork's parent. Lists reuse
 * the texts single answers wrote (and the other way round), so each check reads a list both
 * before and after the single answers.
 */
import { expect, it } from 'vitest';
import type { Repository } from '../../src/domain/repos/repo.types.ts';
import { repoUrl } from '../support/git.ts';
import { type ApiCall, apiCall, type Json } from '../support/http.ts';
import { type Person, useWorld, type World } from '../support/world.ts';

let world: World<'owner' | 'other', 'full' | 'bare' | 'hidden'>;
let owner: Person;
let other: Person;
useWorld(
  {
    people: ['owner', 'other'],
    repos: [
      { owner: 'owner', name: 'full', autoInit: true },
      { owner: 'owner', name: 'bare' },
      { owner: 'owner', name: 'hidden', private: true, autoInit: true },
    ],
  },
  (started) => {
    world = started;
    owner = started.people.owner;
    other = started.people.other;
  },
);

const api = (path: string, call: ApiCall = {}) => apiCall(world.kiln.url, path, call);

/** The lists a caller can ask for, each with how its items sit in the answer's text. */
function lists(as: Person | undefined) {
  const handle = owner.user.handle;
  return [
    { path: '/repos/search?limit=50', wrap: (items: string) => `{"ok":true,"data":${items}}` },
    { path: `/users/${handle}/repos?limit=50`, wrap: (items: string) => items },
    ...(as ? [{ path: '/user/repos?limit=50', wrap: (items: string) => items }] : []),
  ];
}

/** Each list `as` may read holds exactly the single answers of its items, in its order. */
async function listsAgree(as: Person | undefined) {
  for (const { path, wrap } of lists(as)) {
    const listed = await api(path, { token: as?.token });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const items: { full_name: string }[] = path.startsWith('/repos/search')
      ? listed.body.data
      : listed.body;
    const singles: string[] = [];
    for (const { full_name } of items) {
      const one = await api(`/repos/${full_name}`, { token: as?.token });
      expect(one.status).toBe(200);
      singles.push(one.text);
    }
    expect(listed.body).toEqual(JSON.parse(wrap(`[${singles.join(',')}]`)));
    expect(listed.text).toBe(wrap(`[${singles.join(',')}]`));
    // Read again after the single answers: texts they wrote are reused and must still agree.
    expect((await api(path, { token: as?.token })).text).toBe(listed.text);
  }
}

const callers = () => [owner, other, undefined];
const names = async (as: Person | undefined) =>
  (
    (await api(`/users/${owner.user.handle}/repos?limit=50`, { token: as?.token })).body as {
      name: string;
    }[]
  ).map((item) => item.name);
const listed = async (repo: Repository, as: Person) =>
  ((await api('/user/repos?limit=50', { token: as.token })).body as Json[]).find(
    (item) => item.name === repo.name,
  );

it('writes every item as the single answer does, for owner, others and the anonymous', async () => {
  for (const as of callers()) await listsAgree(as);
  expect(await names(owner)).toEqual(['bare', 'full', 'hidden']);
  expect(await names(other)).toEqual(['bare', 'full']);
});

it('shows a push to an empty repository and a new default branch at once', async () => {
  const bare = world.repos.bare;
  expect(await listed(bare, owner)).toMatchObject({ empty: true, default_branch: 'main' });
  // The push's own effects (its `updated_at`) are written by the time this listener runs.
  const pushHandled = new Promise<void>((resolve) => {
    world.kiln.app.events.subscribe('push', async ({ repo }) => {
      if (repo.id === bare.id) resolve();
    });
  });
  const work = await world.git.init();
  await world.git.commit(work, { 'a.txt': 'a' });
  const url = repoUrl(world.kiln.url, owner.user.handle, 'bare', {
    token: owner.token,
    as: 'username',
  });
  await world.git.ok(['push', '-q', url, 'main', 'main:dev'], { cwd: work });
  await pushHandled;
  expect(await listed(bare, owner)).toMatchObject({ empty: false, default_branch: 'main' });
  for (const as of callers()) await listsAgree(as);

  const path = `/repos/${owner.user.handle}/bare`;
  const patched = await api(path, {
    method: 'PATCH',
    token: owner.token,
    body: { default_branch: 'dev' },
  });
  expect(patched.status).toBe(200);
  expect(await listed(bare, owner)).toMatchObject({ default_branch: 'dev' });
  for (const as of callers()) await listsAgree(as);
});

it('drops a repository turned private from outsiders, and shows collaborators their access', async () => {
  const path = `/repos/${owner.user.handle}/full`;
  await api(path, { method: 'PATCH', token: owner.token, body: { private: true } });
  expect(await names(other)).toEqual(['bare']);
  expect(await names(undefined)).toEqual(['bare']);
  for (const as of callers()) await listsAgree(as);

  const collaborator = `${path}/collaborators/${other.user.handle}`;
  await api(collaborator, { method: 'PUT', token: owner.token, body: { permission: 'write' } });
  expect((await listed(world.repos.full, other))?.permissions).toEqual({
    admin: false,
    push: true,
    pull: true,
  });
  for (const as of callers()) await listsAgree(as);
  await api(collaborator, { method: 'PUT', token: owner.token, body: { permission: 'read' } });
  expect((await listed(world.repos.full, other))?.permissions.push).toBe(false);
  for (const as of callers()) await listsAgree(as);
});

it("writes a fork's parent as the caller may see it", async () => {
  const forked = await api(`/repos/${owner.user.handle}/hidden/forks`, {
    method: 'POST',
    token: owner.token,
    body: { name: 'hidden-fork' },
  });
  expect(forked.status).toBe(202);
  await api(`/repos/${owner.user.handle}/hidden-fork`, {
    method: 'PATCH',
    token: owner.token,
    body: { private: false },
  });
  for (const as of callers()) await listsAgree(as);
  const fork = (await api(`/users/${owner.user.handle}/repos?limit=50`)).body.find(
    (item: { name: string }) => item.name === 'hidden-fork',
  );
  expect(fork).not.toHaveProperty('parent');
  const mine = await listed({ ...world.repos.hidden, name: 'hidden-fork' }, owner);
  expect(mine?.parent?.full_name).toBe(`${owner.user.handle}/hidden`);
});
