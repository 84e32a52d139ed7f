/**
 * Whether a person belongs to any of some teams of an organisation, by the teams' names (any
 * case). Rules that name teams — who may approve, push or merge on a protected branch — ask
 * here rather than reading team rows, so the Owners team (the organisation's owners) and the
 * other teams answer alike.
 */
export type TeamMembership = {
  isMemberOfAnyTeam(userId: string, orgId: string, teamNames: readonly string[]): Promise<boolean>;
};
