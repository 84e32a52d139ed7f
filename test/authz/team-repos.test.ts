/**
 * Teams and an organisation's repositories, as Gitea has them: a member of a team with
 * `can_create_org_repo` creates repositories in the organisation over the API and the page,
 * other members are refused with 403; a team's repositories are listed
 * (`GET /teams/{id}/repos`) and asked one by one (`GET /teams/{id}/repos/{org}/{repo}`, 404 when
 * the team does not cover it), each answer in Gitea 1.22's shapes.
 */
import { describe, expect, it } from 'vitest';
import { checkGiteaResponse } from '../api/gitea-swagger.ts';
import { signIn } from '../replicas/support.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';

const ORG = 'makers';
let kiln: TestServer;
let people: Record<'boss' | 'maker' | 'plain' | 'stranger', Person>;
let listedTeam: number;
let allTeam: number;

async function call(path: string, token: string, init: { method?: string; body?: unknown } = {}) {
  const answer = await apiCall(kiln.url, path, { token, ...init });
  checkGiteaResponse(init.method ?? 'GET', path, answer.status, answer.body);
  return answer;
}

useWorld({ people: ['boss', 'maker', 'plain', 'stranger'] }, async (world) => {
  kiln = world.kiln;
  people = world.people;
  const { orgs, repos, teams } = kiln.app.services;
  await orgs.createOrg({ name: ORG, owner: people.boss.user });
  await repos.create(people.boss.user, { name: 'tools', orgName: ORG });
  await repos.create(people.boss.user, { name: 'secret', orgName: ORG, private: true });
  const makers = await teams.create(people.boss.user, ORG, {
    name: 'makers',
    description: '',
    permission: 'write',
    includesAllRepositories: false,
    canCreateOrgRepo: true,
  });
  await teams.addRepo(makers, ORG, 'tools');
  await teams.addMember(makers, people.maker.user.handle);
  const readers = await teams.create(people.boss.user, ORG, {
    name: 'readers',
    description: '',
    permission: 'read',
    includesAllRepositories: true,
    canCreateOrgRepo: false,
  });
  await teams.addMember(readers, people.plain.user.handle);
  listedTeam = makers.team.wireId;
  allTeam = readers.team.wireId;
});

describe('can_create_org_repo', () => {
  it('lets a member of such a team create a repository in the organisation', async () => {
    const made = await call(`/orgs/${ORG}/repos`, people.maker.token, {
      method: 'POST',
      body: { name: 'made-by-maker' },
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ full_name: `${ORG}/made-by-maker` });
  });

  it('refuses other members with 403 and strangers with 404', async () => {
    const plain = await call(`/orgs/${ORG}/repos`, people.plain.token, {
      method: 'POST',
      body: { name: 'made-by-plain' },
    });
    expect(plain.status).toBe(403);
    expect(plain.body.message).toBe(
      'Given user is not allowed to create repository in organization.',
    );
    const stranger = await apiCall(kiln.url, `/orgs/${ORG}/repos`, {
      token: people.stranger.token,
      method: 'POST',
      body: { name: 'made-by-stranger' },
    });
    expect(stranger.status).toBe(404);
  });

  it('offers the organisation on the new repository page and creates there', async () => {
    const browser = await signIn(kiln.url, people.maker.user.handle, people.maker.password);
    const form = await (await browser.get('/new')).text();
    expect(form).toContain(`value="${ORG}"`);
    const posted = await browser.post('/new', { owner: ORG, name: 'from-page' });
    expect(posted.status).toBeLessThan(400);
    expect((await call(`/repos/${ORG}/from-page`, people.boss.token)).status).toBe(200);
    const plain = await signIn(kiln.url, people.plain.user.handle, people.plain.password);
    expect(await (await plain.get('/new')).text()).not.toContain(`value="${ORG}"`);
  });
});

describe('a team’s repositories', () => {
  it('lists the repositories a team names, or all the organisation’s', async () => {
    const listed = await call(`/teams/${listedTeam}/repos`, people.maker.token);
    expect(listed.status).toBe(200);
    expect(listed.body.map((repo: { name: string }) => repo.name)).toEqual(['tools']);
    const all = await call(`/teams/${allTeam}/repos`, people.plain.token);
    expect(all.status).toBe(200);
    expect(all.body.map((repo: { name: string }) => repo.name).sort()).toEqual(
      expect.arrayContaining(['secret', 'tools']),
    );
  });

  it('answers one repository of the team, 404 for one it does not cover', async () => {
    const one = await call(`/teams/${listedTeam}/repos/${ORG}/tools`, people.maker.token);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ full_name: `${ORG}/tools` });
    const other = await call(`/teams/${listedTeam}/repos/${ORG}/secret`, people.boss.token);
    expect(other.status).toBe(404);
  });

  it('keeps a team’s repositories from people outside the organisation', async () => {
    const answer = await apiCall(kiln.url, `/teams/${listedTeam}/repos`, {
      token: people.stranger.token,
    });
    expect([403, 404]).toContain(answer.status);
  });
});
