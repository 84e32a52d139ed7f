/**
 * Repository answers are written once and reused by lists and single answers alike, until one
 * of the things an answer shows changes: then only that repository's answer is written again.
 * Built on the running server's own domain services (real database, real repositories).
 */
import { expect, it } from 'vitest';
import type { VisibleRepo } from '../../src/domain/repos/repo.types.ts';
import { RepoAnswers } from '../../src/http/api/v1/repo-answers.ts';
import type { ConvertContext } from '../../src/present/context.ts';
import { RepoViews } from '../../src/present/repo-views.ts';
import type { ApiRepository } from '../../src/present/schemas/repo.ts';
import { type Person, useWorld, type World } from '../support/world.ts';

let world: World<'owner', 'one' | 'two' | 'three'>;
let owner: Person;
useWorld(
  {
    people: ['owner'],
    repos: [
      { owner: 'owner', name: 'one', autoInit: true },
      { owner: 'owner', name: 'two', autoInit: true },
      { owner: 'owner', name: 'three' },
    ],
  },
  (started) => {
    world = started;
    owner = started.people.owner;
  },
);

/** Which repositories were written, in order. */
const written: string[] = [];
const serialize = (repository: ApiRepository) => {
  written.push(repository.name);
  return JSON.stringify(repository);
};
const writtenSince = (from: number) => written.slice(from).sort();
const here: ConvertContext = { baseUrl: 'http://kiln.example.test' };

const page = async () =>
  (
    await world.kiln.app.services.repos.listByOwner(owner.user, owner.user.handle, {
      limit: 10,
      offset: 0,
    })
  ).items;
const text = (answer: string | Buffer) => answer.toString();

it('writes each answer once for lists and single answers, and again only what changed', async () => {
  const { services } = world.kiln.app;
  const answers = new RepoAnswers(new RepoViews({ services }));
  const single = async (visible: VisibleRepo, context = here) =>
    text(await answers.serialized(owner.user, visible, context, serialize));
  const list = async (context = here) =>
    text(await answers.serializedList(owner.user, await page(), context, serialize));

  const singles: string[] = [];
  for (const name of ['one', 'three', 'two']) {
    singles.push(await single(await services.repos.get(owner.user, owner.user.handle, name)));
  }
  expect(writtenSince(0)).toEqual(['one', 'three', 'two']);
  let mark = written.length;
  expect(await list()).toBe(`[${singles.join(',')}]`);
  expect(await list()).toBe(`[${singles.join(',')}]`);
  expect(writtenSince(mark)).toEqual([]);

  // git itself moves HEAD of one repository: only that one is written again.
  const dir = world.kiln.app.git.paths.resolve({ owner: owner.user.handle, name: 'two' }).path;
  await world.git.ok(['--git-dir', dir, 'branch', 'next', 'main']);
  await world.git.ok(['--git-dir', dir, 'symbolic-ref', 'HEAD', 'refs/heads/next']);
  mark = written.length;
  const moved = JSON.parse(await list());
  expect(writtenSince(mark)).toEqual(['two']);
  expect(moved.map((repo: ApiRepository) => repo.default_branch)).toEqual(['main', 'main', 'next']);

  // A database write: every page is read again, but only the edited row is written again.
  await services.repos.updateSettings(owner.user, owner.user.handle, 'one', {
    description: 'edited',
  });
  mark = written.length;
  expect(JSON.parse(await list())[0].description).toBe('edited');
  expect(writtenSince(mark)).toEqual(['one']);

  // Another base URL is another answer for every repository.
  mark = written.length;
  await list({ baseUrl: 'http://elsewhere.example.test' });
  expect(writtenSince(mark)).toEqual(['one', 'three', 'two']);
  mark = written.length;
  await list();
  expect(writtenSince(mark)).toEqual([]);
});
