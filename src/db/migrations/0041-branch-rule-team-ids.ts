import { type Kysely, sql } from 'kysely';
import type { Migration } from '../migration.ts';

const KEYS = [
  ['pushWhitelistTeams', 'pushWhitelistTeamIds'],
  ['mergeWhitelistTeams', 'mergeWhitelistTeamIds'],
  ['approvalsWhitelistTeams', 'approvalsWhitelistTeamIds'],
] as const;

type Row = { repo_id: string; branch: string; settings: string; owner_id: string };

/**
 * Branch rules name whitelisted teams by id, not by name: a team renamed, or deleted and
 * another made with its name, must not hand its place on a whitelist to another. Each rule's
 * team names become the ids of the teams of its repository's organisation so named now; a name
 * that matches no team (or a repository owned by a person, whose rules Gitea gives no teams)
 * is dropped, since it admitted nobody it could still mean.
 */
export const branchRuleTeamIdsMigration: Migration = {
  name: '0041-branch-rule-team-ids',
  async up(db: Kysely<unknown>) {
    const { rows } = await sql<Row>`
      select pb.repo_id, pb.branch, pb.settings, r.owner_id
      from protected_branches pb join repositories r on r.id = pb.repo_id`.execute(db);
    for (const row of rows) {
      let settings: Record<string, unknown>;
      try {
        const parsed: unknown = JSON.parse(row.settings);
        if (typeof parsed !== 'object' || parsed === null) continue;
        settings = parsed as Record<string, unknown>;
      } catch {
        continue;
      }
      if (!KEYS.some(([names]) => names in settings)) continue;
      for (const [namesKey, idsKey] of KEYS) {
        const names = Array.isArray(settings[namesKey]) ? settings[namesKey] : [];
        const lower = names
          .filter((n): n is string => typeof n === 'string')
          .map((n) => n.toLowerCase());
        const ids: string[] = [];
        for (const name of lower) {
          const { rows: found } = await sql<{ id: string }>`
            select id from teams where org_id = ${row.owner_id} and name_lower = ${name}`.execute(
            db,
          );
          for (const team of found) if (!ids.includes(team.id)) ids.push(team.id);
        }
        delete settings[namesKey];
        settings[idsKey] = ids;
      }
      await sql`update protected_branches set settings = ${JSON.stringify(settings)}
        where repo_id = ${row.repo_id} and branch = ${row.branch}`.execute(db);
    }
  },
};
