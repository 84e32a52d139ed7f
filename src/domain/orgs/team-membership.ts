/**
 * Whether a person belongs to any of an organisation's teams named in a protection rule's
 * whitelists (`approvals_whitelist_teams`, `push_whitelist_teams`, `merge_whitelist_teams`).
 * A port: the composition root hands the protection rules the organisation's real teams.
 */
export type TeamMembership = {
  isMemberOfAnyTeam(userId: string, orgId: string, teamNames: readonly string[]): Promise<boolean>;
};

/** The answer while an instance has no teams: nobody is a member of any. */
export const NO_TEAMS: TeamMembership = {
  isMemberOfAnyTeam: async () => false,
};
