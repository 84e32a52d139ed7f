/**
 * Migration 0041 on the configured engine: branch rules that named whitelisted teams by name
 * keep them by id, found in the repository's organisation (any case); a name no team has, and
 * any team of a person's repository, is dropped; other settings stay as they were.
 */
import { describe, expect, it } from 'vitest';
import { type Database, migrate } from '../../src/db/database.ts';
import { parseRuleSettings } from '../../src/domain/repos/branch-rule.ts';
import {
  insertOwner,
  insertRepos,
  migrateBefore,
  useScratchDatabase,
} from '../support/migrate-before.ts';

let database: Database;
useScratchDatabase('kiln-rule-teams-', (opened) => {
  database = opened;
});

describe('branch rules stored before migration 0041', () => {
  it('name their teams by id from then on', async () => {
    await migrateBefore(database, '0041-branch-rule-team-ids');
    const org = await insertOwner(database, 'guild', 'org');
    const person = await insertOwner(database, 'ada');
    const [orgRepo, ownRepo] = [
      ...(await insertRepos(database, org, ['shop'])),
      ...(await insertRepos(database, person, ['mine'])),
    ];
    const team = crypto.randomUUID();
    await database.db
      .insertInto('teams')
      .values({
        id: team,
        wire_id: 77,
        org_id: org,
        name: 'Reviewers',
        name_lower: 'reviewers',
        permission: 'write',
        created_at: 0,
      })
      .execute();
    const settings = JSON.stringify({
      requiredApprovals: 2,
      mergeWhitelistTeams: ['reviewers', 'gone'],
      pushWhitelistTeams: ['REVIEWERS'],
    });
    await database.db
      .insertInto('protected_branches')
      .values([
        { repo_id: orgRepo as string, branch: 'main', created_at: 0, settings },
        { repo_id: ownRepo as string, branch: 'main', created_at: 0, settings },
      ])
      .execute();
    await migrate(database);

    const rows = await database.db
      .selectFrom('protected_branches')
      .select(['repo_id', 'settings'])
      .execute();
    const of = (repo: string | undefined) =>
      parseRuleSettings(rows.find((row) => row.repo_id === repo)?.settings ?? '{}');
    expect(of(orgRepo)).toMatchObject({
      requiredApprovals: 2,
      mergeWhitelistTeamIds: [team],
      pushWhitelistTeamIds: [team],
      approvalsWhitelistTeamIds: [],
    });
    expect(of(ownRepo)).toMatchObject({ mergeWhitelistTeamIds: [], pushWhitelistTeamIds: [] });
    expect(rows.every((row) => !row.settings.includes('WhitelistTeams"'))).toBe(true);
  });
});
