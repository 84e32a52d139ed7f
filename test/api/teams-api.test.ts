/**
 * Teams through the REST API, as Gitea's clients use them: an organisation's teams, one team by
 * id, its members and repositories, and the caller's own teams, every answer checked against
 * Gitea 1.22's definitions. The Owners team is the organisation's owners; other teams' members
 * are members of the organisation, and leave its teams when they leave it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Account } from '../../src/domain/users/user.types.ts';
import { apiCall } from '../support/http.ts';
import type { TestServer } from '../support/server.ts';
import { type Person, useWorld } from '../support/world.ts';
import { checkGiteaResponse } from './gitea-swagger.ts';

let kiln: TestServer;
let owner: Person;
let dev: Person;
let stranger: Person;
useWorld({ people: ['owner', 'dev', 'stranger'] }, (world) => {
  kiln = world.kiln;
  ({ owner, dev, stranger } = world.people);
});

type Call = { method?: string; token?: string; body?: Record<string, unknown> };

/** A REST call whose answer is checked against Gitea's swagger, whatever its status. */
async function call(path: string, options: Call = {}) {
  const answer = await apiCall(kiln.url, path, options);
  checkGiteaResponse(options.method ?? 'GET', path, answer.status, answer.body);
  return answer;
}

let org: Account;
let privateOrg: Account;
beforeAll(async () => {
  org = await kiln.make.org(owner.user, 'crew');
  privateOrg = await kiln.app.services.orgs.createOrg({
    name: 'hidden-crew',
    owner: owner.user,
    visibility: 'private',
  });
});

async function createTeam(orgName: string, body: Record<string, unknown>, token = owner.token) {
  return call(`/orgs/${orgName}/teams`, { method: 'POST', token, body });
}

describe('teams over REST', () => {
  it('lists the Owners team of a new organisation, with its owners as members', async () => {
    const listed = await call(`/orgs/${org.handle}/teams`, { token: owner.token });
    expect(listed.status).toBe(200);
    const [owners] = listed.body as Array<{ id: number; name: string; permission: string }>;
    expect(owners).toMatchObject({ name: 'Owners', permission: 'owner' });
    const members = await call(`/teams/${owners?.id}/members`, { token: owner.token });
    expect((members.body as Array<{ login: string }>).map((u) => u.login)).toEqual([
      owner.user.handle,
    ]);
  });

  it('creates, reads, edits and deletes a team; names are unique in any case', async () => {
    const made = await createTeam(org.handle, {
      name: 'Devs',
      description: 'they build',
      permission: 'write',
      units: ['repo.code'],
    });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({
      name: 'Devs',
      description: 'they build',
      permission: 'write',
      includes_all_repositories: false,
      organization: { name: org.handle },
    });
    const id = (made.body as { id: number }).id;
    expect((await createTeam(org.handle, { name: 'devs' })).status).toBe(409);
    expect((await call(`/teams/${id}`, { token: owner.token })).body).toMatchObject({ id });
    const edited = await call(`/teams/${id}`, {
      method: 'PATCH',
      token: owner.token,
      body: { name: 'Builders', includes_all_repositories: true },
    });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      name: 'Builders',
      description: 'they build',
      permission: 'write',
      includes_all_repositories: true,
    });
    expect((await call(`/teams/${id}`, { method: 'DELETE', token: owner.token })).status).toBe(204);
    expect((await call(`/teams/${id}`, { token: owner.token })).status).toBe(404);
  });

  it('refuses bad input with a 4xx and a message', async () => {
    for (const body of [
      { name: 'x', permission: 'owner' },
      { name: 'x', permission: 'none' },
      { name: 'a b' },
      { name: 'OWNERS' },
      { name: '' },
      { name: 'x', description: 'd'.repeat(300) },
      { name: 'x', includes_all_repositories: 'sometimes' },
    ]) {
      const refused = await createTeam(org.handle, body);
      expect(refused.status, JSON.stringify(body)).toBe(422);
    }
    expect((await call('/teams/not-a-number', { token: owner.token })).status).toBe(422);
    expect((await call('/teams/12345', { token: owner.token })).status).toBe(404);
  });

  it('adds members to the organisation with the team, and lists a member’s teams', async () => {
    const team = (await createTeam(org.handle, { name: 'Helpers', permission: 'read' })).body as {
      id: number;
    };
    const put = await call(`/teams/${team.id}/members/${dev.user.handle}`, {
      method: 'PUT',
      token: owner.token,
    });
    expect(put.status).toBe(204);
    expect(await kiln.app.services.orgs.roleOf(org.id, dev.user.id)).toBe('member');
    const mine = await call('/user/teams', { token: dev.token });
    expect(mine.status).toBe(200);
    expect((mine.body as Array<{ name: string }>).map((t) => t.name)).toEqual(['Helpers']);
    const owners = await call('/user/teams', { token: owner.token });
    expect((owners.body as Array<{ name: string }>).map((t) => t.name)).toContain('Owners');
    // A plain member sees the teams and may not change them.
    expect((await call(`/orgs/${org.handle}/teams`, { token: dev.token })).status).toBe(200);
    expect(
      (
        await call(`/teams/${team.id}/members/${stranger.user.handle}`, {
          method: 'PUT',
          token: dev.token,
        })
      ).status,
    ).toBe(403);
    expect((await call(`/teams/${team.id}`, { method: 'DELETE', token: dev.token })).status).toBe(
      403,
    );
    // Leaving the organisation leaves its teams.
    await kiln.app.services.orgs.removeMember(owner.user, org.handle, dev.user.handle);
    expect(((await call('/user/teams', { token: dev.token })).body as unknown[]).length).toBe(0);
    const removed = await call(`/teams/${team.id}/members/${dev.user.handle}`, {
      method: 'DELETE',
      token: owner.token,
    });
    expect(removed.status).toBe(404);
  });

  it('shows an organisation’s teams to its members only, and a private one’s to nobody else', async () => {
    expect((await call(`/orgs/${org.handle}/teams`, { token: stranger.token })).status).toBe(403);
    expect((await call(`/orgs/${org.handle}/teams`)).status).toBe(401);
    expect((await call(`/orgs/${privateOrg.handle}/teams`, { token: stranger.token })).status).toBe(
      404,
    );
    const team = (await createTeam(privateOrg.handle, { name: 'Quiet' })).body as { id: number };
    expect((await call(`/teams/${team.id}`, { token: stranger.token })).status).toBe(404);
    expect(
      (
        await call(`/teams/${team.id}/members/${stranger.user.handle}`, {
          method: 'PUT',
          token: stranger.token,
        })
      ).status,
    ).toBe(404);
  });

  it('makes owners through the Owners team, keeps the last one and the team itself', async () => {
    const teams = (await call(`/orgs/${privateOrg.handle}/teams`, { token: owner.token }))
      .body as Array<{ id: number; name: string }>;
    const owners = teams.find((t) => t.name === 'Owners');
    const path = `/teams/${owners?.id}`;
    expect(
      (
        await call(`${path}/members/${owner.user.handle}`, {
          method: 'DELETE',
          token: owner.token,
        })
      ).status,
    ).toBe(409);
    expect((await call(path, { method: 'DELETE', token: owner.token })).status).toBe(422);
    const renamed = await call(path, {
      method: 'PATCH',
      token: owner.token,
      body: { name: 'Bosses', permission: 'read', description: 'in charge' },
    });
    expect(renamed.body).toMatchObject({
      name: 'Owners',
      permission: 'owner',
      description: 'in charge',
    });
    await call(`${path}/members/${dev.user.handle}`, { method: 'PUT', token: owner.token });
    expect(await kiln.app.services.orgs.roleOf(privateOrg.id, dev.user.id)).toBe('owner');
    expect(
      (
        await call(`${path}/members/${dev.user.handle}`, {
          method: 'DELETE',
          token: owner.token,
        })
      ).status,
    ).toBe(204);
    expect(await kiln.app.services.orgs.roleOf(privateOrg.id, dev.user.id)).toBe('member');
  });

  it('lists only the organisation’s own repositories for a team', async () => {
    const team = (await createTeam(org.handle, { name: 'Repo-keepers' })).body as { id: number };
    await kiln.app.services.repos.create(owner.user, { name: 'tool', orgName: org.handle });
    await kiln.app.services.repos.create(stranger.user, { name: 'tool' });
    const add = (owner_: string, name: string, method = 'PUT') =>
      call(`/teams/${team.id}/repos/${owner_}/${name}`, { method, token: owner.token });
    expect((await add(org.handle, 'tool')).status).toBe(204);
    expect((await add(stranger.user.handle, 'tool')).status).toBe(404);
    expect((await add(org.handle, 'missing')).status).toBe(404);
    const view = await kiln.app.services.teams.get(owner.user, team.id);
    expect((await kiln.app.services.teams.repos(view)).map((r) => r.name)).toEqual(['tool']);
    expect((await add(org.handle, 'tool', 'DELETE')).status).toBe(204);
    expect(await kiln.app.services.teams.repos(view)).toEqual([]);
  });

  it('answers whether a person is in any of some named teams, the Owners team included', async () => {
    const { teams } = kiln.app.services;
    const team = (await createTeam(org.handle, { name: 'Reviewers' })).body as { id: number };
    await call(`/teams/${team.id}/members/${stranger.user.handle}`, {
      method: 'PUT',
      token: owner.token,
    });
    expect(await teams.isMemberOfAnyTeam(stranger.user.id, org.id, ['reviewers'])).toBe(true);
    expect(await teams.isMemberOfAnyTeam(stranger.user.id, org.id, ['owners'])).toBe(false);
    expect(await teams.isMemberOfAnyTeam(owner.user.id, org.id, ['Owners'])).toBe(true);
    expect(await teams.isMemberOfAnyTeam(owner.user.id, org.id, ['Reviewers'])).toBe(false);
    expect(await teams.isMemberOfAnyTeam(stranger.user.id, privateOrg.id, ['reviewers'])).toBe(
      false,
    );
    expect(await teams.isMemberOfAnyTeam(stranger.user.id, org.id, [])).toBe(false);
  });
});
