import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Invalid } from '../../../domain/errors.ts';
import type { ProtectionChange } from '../../../domain/repos/protected-branch.service.ts';
import type { ProtectedBranchRecord } from '../../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { rfc3339 } from '../../../lib/time.ts';
import {
  type ApiBranchProtection,
  ApiBranchProtectionSchema,
  type ApiEditBranchProtectionOption,
  CreateBranchProtectionOptionSchema,
  EditBranchProtectionOptionSchema,
} from '../../../present/schemas/branch-protection.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { RepoParams, repoParamsWith } from './params.ts';

// The rule name is matched greedily, so `release/1.0` works raw as well as `%2F`-encoded.
const RuleParams = repoParamsWith({
  '*': Type.String({ maxLength: 255 }),
});
const tags = ['repository'];
const adminErrors = errorResponses;

/**
 * Gitea's BranchProtection for a Kiln rule: its name (a branch or a glob), who may push, merge
 * and approve, what blocks a merge and the required checks. People and teams are shown by
 * their names now (`handles` maps both ids); one whose account or team is gone is left out.
 */
export function toApiBranchProtection(
  record: ProtectedBranchRecord,
  handles: ReadonlyMap<string, string>,
): ApiBranchProtection {
  const names = (ids: readonly string[]) =>
    ids.flatMap((id) => {
      const handle = handles.get(id);
      return handle === undefined ? [] : [handle];
    });
  return {
    branch_name: record.branch,
    rule_name: record.branch,
    enable_push: record.enablePush,
    enable_push_whitelist: record.enablePushWhitelist,
    push_whitelist_usernames: names(record.pushWhitelistUserIds),
    push_whitelist_teams: names(record.pushWhitelistTeamIds),
    push_whitelist_deploy_keys: record.pushWhitelistDeployKeys,
    enable_merge_whitelist: record.enableMergeWhitelist,
    merge_whitelist_usernames: names(record.mergeWhitelistUserIds),
    merge_whitelist_teams: names(record.mergeWhitelistTeamIds),
    enable_status_check: record.enableStatusCheck,
    status_check_contexts: [...record.statusCheckContexts],
    required_approvals: record.requiredApprovals,
    enable_approvals_whitelist: record.enableApprovalsWhitelist,
    approvals_whitelist_username: names(record.approvalsWhitelistUserIds),
    approvals_whitelist_teams: names(record.approvalsWhitelistTeamIds),
    block_on_rejected_reviews: record.blockOnRejectedReviews,
    block_on_official_review_requests: record.blockOnOfficialReviewRequests,
    block_on_outdated_branch: record.blockOnOutdatedBranch,
    dismiss_stale_approvals: record.dismissStaleApprovals,
    ignore_stale_approvals: record.ignoreStaleApprovals,
    require_signed_commits: record.requireSignedCommits,
    protected_file_patterns: record.protectedFilePatterns,
    unprotected_file_patterns: record.unprotectedFilePatterns,
    created_at: rfc3339(record.createdAt),
    updated_at: rfc3339(record.updatedAt),
  };
}

/** What the routes use: the protected branch rules. */
export type BranchProtectionRouteDeps = {
  readonly services: Pick<DomainServices, 'protectedBranches'>;
};

/** Branch protections, Gitea-compatible: list, create, get, edit and delete; repository admins only. */
export function registerBranchProtectionRoutes(
  parent: FastifyInstance,
  deps: BranchProtectionRouteDeps,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { protectedBranches } = deps.services;
  const base = '/repos/:owner/:name/branch_protections';
  const present = async (record: ProtectedBranchRecord) =>
    toApiBranchProtection(record, await protectedBranches.handlesOf([record]));

  server.get(
    base,
    {
      schema: {
        summary: "A repository's branch protections",
        tags,
        params: RepoParams,
        response: { 200: Type.Array(ApiBranchProtectionSchema), ...adminErrors },
      },
    },
    async (request) => {
      const { owner, name } = request.params;
      const records = await protectedBranches.list(viewerUser(request.viewer), owner, name);
      const handles = await protectedBranches.handlesOf(records);
      return records.map((record) => toApiBranchProtection(record, handles));
    },
  );

  server.post(
    base,
    {
      schema: {
        summary: 'Protect a branch from force pushes and deletion',
        tags,
        params: RepoParams,
        body: CreateBranchProtectionOptionSchema,
        response: { 201: ApiBranchProtectionSchema, ...adminErrors },
      },
    },
    async (request, reply) => {
      const { owner, name } = request.params;
      const { body } = request;
      const rule = body.rule_name || body.branch_name;
      if (!rule) throw new Invalid('both rule_name and branch_name are empty');
      const record = await protectedBranches.create(
        viewerUser(request.viewer),
        owner,
        name,
        rule,
        changeOf(body),
      );
      return reply.status(201).send(await present(record));
    },
  );

  server.get(
    `${base}/*`,
    {
      schema: {
        summary: 'One branch protection',
        tags,
        params: RuleParams,
        response: { 200: ApiBranchProtectionSchema, ...adminErrors },
      },
    },
    async (request) => {
      const { owner, name, '*': rule } = request.params;
      return present(await protectedBranches.get(viewerUser(request.viewer), owner, name, rule));
    },
  );

  server.patch(
    `${base}/*`,
    {
      schema: {
        summary: "Change a branch protection's required checks",
        tags,
        params: RuleParams,
        body: EditBranchProtectionOptionSchema,
        response: { 200: ApiBranchProtectionSchema, ...adminErrors },
      },
    },
    async (request) => {
      const { owner, name, '*': rule } = request.params;
      const record = await protectedBranches.edit(
        viewerUser(request.viewer),
        owner,
        name,
        rule,
        changeOf(request.body),
      );
      return present(record);
    },
  );

  server.delete(
    `${base}/*`,
    {
      schema: {
        summary: 'Lift a branch protection',
        tags,
        params: RuleParams,
        response: { 204: Type.Null(), ...adminErrors },
      },
    },
    async (request, reply) => {
      const { owner, name, '*': rule } = request.params;
      await protectedBranches.delete(viewerUser(request.viewer), owner, name, rule);
      return reply.status(204).send(null);
    },
  );
}

/** What a create or edit option sets; what it leaves out is left as it is. */
function changeOf(body: ApiEditBranchProtectionOption): ProtectionChange {
  const lists = {
    statusCheckContexts: body.status_check_contexts,
    pushWhitelistUsernames: body.push_whitelist_usernames,
    pushWhitelistTeams: body.push_whitelist_teams,
    mergeWhitelistUsernames: body.merge_whitelist_usernames,
    mergeWhitelistTeams: body.merge_whitelist_teams,
    approvalsWhitelistUsernames: body.approvals_whitelist_username,
    approvalsWhitelistTeams: body.approvals_whitelist_teams,
  };
  const values = {
    enableStatusCheck: body.enable_status_check,
    enablePush: body.enable_push,
    enablePushWhitelist: body.enable_push_whitelist,
    pushWhitelistDeployKeys: body.push_whitelist_deploy_keys,
    enableMergeWhitelist: body.enable_merge_whitelist,
    requiredApprovals: body.required_approvals,
    enableApprovalsWhitelist: body.enable_approvals_whitelist,
    blockOnRejectedReviews: body.block_on_rejected_reviews,
    blockOnOfficialReviewRequests: body.block_on_official_review_requests,
    blockOnOutdatedBranch: body.block_on_outdated_branch,
    dismissStaleApprovals: body.dismiss_stale_approvals,
    ignoreStaleApprovals: body.ignore_stale_approvals,
    requireSignedCommits: body.require_signed_commits,
    protectedFilePatterns: body.protected_file_patterns,
    unprotectedFilePatterns: body.unprotected_file_patterns,
  };
  return Object.fromEntries([
    // Go's nil slice arrives as null: an empty list.
    ...Object.entries(lists).flatMap(([key, v]) => (v === undefined ? [] : [[key, v ?? []]])),
    ...Object.entries(values).filter(([, v]) => v !== undefined),
  ]) as ProtectionChange;
}
