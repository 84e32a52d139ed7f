/**
 * Whitelists keep teams by id and ask for write access at each use: a team renamed keeps its
 * place (and is shown by its new name), a team deleted and made again under its name does not
 * inherit it, and a person listed who has since lost write access no longer counts.
 */
import { describe, expect, it } from 'vitest';
import { type GitClient, repoUrl } from '../support/git.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';

const ORG = 'crew';
let kiln: TestServer;
let git: GitClient;
let people: Record<'boss' | 'first' | 'second' | 'reviewer', Person>;
let work: string;
const rule = `/repos/${ORG}/code/branch_protections/main`;

/** Pushes a new commit on main as `person`; answers whether the push went through. */
async function pushAs(person: Person, file: string): Promise<boolean> {
  const url = repoUrl(kiln.url, ORG, 'code', { token: person.token, as: 'username' });
  await git.ok(['fetch', '-q', url, 'main'], { cwd: work });
  await git.ok(['reset', '-q', '--hard', 'FETCH_HEAD'], { cwd: work });
  await git.commit(work, { [file]: `${file}\n` });
  return (await git.run(['push', '-q', url, 'HEAD:main'], { cwd: work })).code === 0;
}

useWorld({ people: ['boss', 'first', 'second', 'reviewer'] }, async (world) => {
  ({ kiln, git } = world);
  people = world.people;
  const { orgs, repos, teams } = kiln.app.services;
  await orgs.createOrg({ name: ORG, owner: people.boss.user });
  await repos.create(people.boss.user, { name: 'code', orgName: ORG, autoInit: true });
  const team = await teams.create(people.boss.user, ORG, {
    name: 'pushers',
    description: '',
    permission: 'write',
    includesAllRepositories: true,
    canCreateOrgRepo: false,
  });
  await teams.addMember(team, people.first.user.handle);
  const created = await apiCall(kiln.url, `/repos/${ORG}/code/branch_protections`, {
    token: people.boss.token,
    method: 'POST',
    body: { rule_name: 'main', enable_push_whitelist: true, push_whitelist_teams: ['Pushers'] },
  });
  expect(created.status).toBe(201);
  work = await git.clone(
    repoUrl(kiln.url, ORG, 'code', { token: people.boss.token, as: 'username' }),
  );
});

describe('team whitelists', () => {
  it('refuses a team that does not exist, with 422', async () => {
    const answer = await apiCall(kiln.url, rule, {
      token: people.boss.token,
      method: 'PATCH',
      body: { merge_whitelist_teams: ['nobody-here'] },
    });
    expect(answer.status).toBe(422);
    expect(answer.body.message).toBe('team does not exist [name: nobody-here]');
  });

  it('keeps a renamed team listed, under its new name', async () => {
    expect(await pushAs(people.first, 'one.txt')).toBe(true);
    const { teams } = kiln.app.services;
    const view = await teams.byName(people.boss.user, ORG, 'pushers');
    await teams.edit(view, { ...view.team, permission: 'write', name: 'movers' });
    const shown = await apiCall(kiln.url, rule, { token: people.boss.token });
    expect(shown.body.push_whitelist_teams).toEqual(['movers']);
    expect(await pushAs(people.first, 'two.txt')).toBe(true);
  });

  it('gives a team made again under a deleted team’s name no place on the list', async () => {
    const { teams } = kiln.app.services;
    await teams.delete(await teams.byName(people.boss.user, ORG, 'movers'));
    const again = await teams.create(people.boss.user, ORG, {
      name: 'movers',
      description: '',
      permission: 'write',
      includesAllRepositories: true,
      canCreateOrgRepo: false,
    });
    await teams.addMember(again, people.second.user.handle);
    const shown = await apiCall(kiln.url, rule, { token: people.boss.token });
    expect(shown.body.push_whitelist_teams).toEqual([]);
    expect(await pushAs(people.second, 'three.txt')).toBe(false);
  });

  it('no longer counts a listed reviewer who lost write access', async () => {
    const { teams } = kiln.app.services;
    const reviewers = await teams.create(people.boss.user, ORG, {
      name: 'reviewers',
      description: '',
      permission: 'read',
      includesAllRepositories: true,
      canCreateOrgRepo: false,
    });
    await teams.addMember(reviewers, people.reviewer.user.handle);
    const set = await apiCall(kiln.url, rule, {
      token: people.boss.token,
      method: 'PATCH',
      body: { enable_approvals_whitelist: true, approvals_whitelist_teams: ['reviewers'] },
    });
    expect(set.status).toBe(200);
    await git.ok(['checkout', '-q', '-B', 'topic'], { cwd: work });
    await git.commit(work, { 'topic.txt': 'topic\n' });
    const url = repoUrl(kiln.url, ORG, 'code', { token: people.boss.token, as: 'username' });
    await git.ok(['push', '-q', url, 'topic:topic'], { cwd: work });
    const pull = await apiCall(kiln.url, `/repos/${ORG}/code/pulls`, {
      token: people.boss.token,
      method: 'POST',
      body: { title: 'topic', head: 'topic', base: 'main' },
    });
    expect(pull.status).toBe(201);
    const review = await apiCall(kiln.url, `/repos/${ORG}/code/pulls/${pull.body.number}/reviews`, {
      token: people.reviewer.token,
      method: 'POST',
      body: { event: 'APPROVED', body: 'fine' },
    });
    expect(review.status).toBe(200);
    // On the list, but the team gives read access only: the approval is not official.
    expect(review.body.official).toBe(false);
  });
});
