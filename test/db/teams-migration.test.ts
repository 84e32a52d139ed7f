/**
 * Migration 0037 on the configured engine: every organisation that exists before it gets its
 * Owners team, whose members are the organisation's owners from then on (the access rule and
 * TeamService read them from `org_members`); people's accounts get no team.
 */
import { describe, expect, it } from 'vitest';
import { type Database, migrate } from '../../src/db/database.ts';
import { OrgStore } from '../../src/domain/orgs/org.store.ts';
import { TeamStore } from '../../src/domain/orgs/team.store.ts';
import { UserStore } from '../../src/domain/users/user.store.ts';
import { insertOwner, migrateBefore, useScratchDatabase } from '../support/migrate-before.ts';

let database: Database;
useScratchDatabase('kiln-teams-', (opened) => {
  database = opened;
});

describe('organisations stored before migration 0037', () => {
  it('each get an Owners team, and their owners are its members', async () => {
    await migrateBefore(database, '0037-teams');
    const ada = await insertOwner(database, 'ada');
    const bob = await insertOwner(database, 'bob');
    const orgs = [
      await insertOwner(database, 'guild', 'org'),
      await insertOwner(database, 'club', 'org'),
    ];
    for (const org of orgs) {
      await database.db
        .insertInto('org_members')
        .values([
          { org_id: org, user_id: ada, role: 'owner', created_at: 0 },
          { org_id: org, user_id: bob, role: 'member', created_at: 0 },
        ])
        .execute();
    }
    await migrate(database);

    const teams = new TeamStore(database.db);
    for (const org of orgs) {
      const found = await teams.listByOrg(org);
      expect(found.map((team) => [team.name, team.permission])).toEqual([['Owners', 'owner']]);
      expect(await teams.findByWireId(found[0]?.wireId ?? 0)).toEqual(found[0]);
    }
    const adaTeams = await teams.listOfUser(ada);
    expect(adaTeams.map((team) => team.orgId).sort()).toEqual([...orgs].sort());
    expect(await teams.listOfUser(bob)).toEqual([]);
    expect(await teams.listByOrg(ada)).toEqual([]);
    // An organisation made after the migration gets its Owners team with it.
    const made = await new OrgStore(database.db, new UserStore(database.db)).insertWithOwner(
      {
        id: crypto.randomUUID(),
        handle: 'later',
        kind: 'org',
        email: null,
        fullName: '',
        passwordHash: null,
        createdAt: 1,
      },
      bob,
    );
    expect((await teams.listOfUser(bob)).map((team) => team.orgId)).toEqual([made.id]);
  });
});
