import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { Invalid } from '../../../domain/errors.ts';
import type { RequiredCheckChange } from '../../../domain/repos/protected-branch.service.ts';
import type { ProtectedBranchRecord } from '../../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { rfc3339 } from '../../../lib/time.ts';
import {
  type ApiBranchProtection,
  ApiBranchProtectionSchema,
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
 * Gitea's BranchProtection for a Kiln protected branch: pushes allowed to everyone with write
 * access (`enable_push` with no allow-list), never a force push or a deletion, merges waiting
 * for the required checks; Kiln has no approvals, file patterns or signing rules, so those are
 * their zero values.
 */
export function toApiBranchProtection(record: ProtectedBranchRecord): ApiBranchProtection {
  const at = rfc3339(record.createdAt);
  return {
    branch_name: record.branch,
    rule_name: record.branch,
    enable_push: true,
    enable_push_whitelist: false,
    push_whitelist_usernames: [],
    push_whitelist_teams: [],
    push_whitelist_deploy_keys: false,
    enable_merge_whitelist: false,
    merge_whitelist_usernames: [],
    merge_whitelist_teams: [],
    enable_status_check: record.enableStatusCheck,
    status_check_contexts: [...record.statusCheckContexts],
    required_approvals: 0,
    enable_approvals_whitelist: false,
    approvals_whitelist_username: [],
    approvals_whitelist_teams: [],
    block_on_rejected_reviews: false,
    block_on_official_review_requests: false,
    block_on_outdated_branch: false,
    dismiss_stale_approvals: false,
    ignore_stale_approvals: false,
    require_signed_commits: false,
    protected_file_patterns: '',
    unprotected_file_patterns: '',
    created_at: at,
    updated_at: at,
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
      return records.map(toApiBranchProtection);
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
        checksOf(body),
      );
      return reply.status(201).send(toApiBranchProtection(record));
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
      return toApiBranchProtection(
        await protectedBranches.get(viewerUser(request.viewer), owner, name, rule),
      );
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
        checksOf(request.body),
      );
      return toApiBranchProtection(record);
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

/** The required checks a create or edit option sets; what it leaves out is left as it is. */
function checksOf(body: {
  readonly enable_status_check?: boolean | undefined;
  readonly status_check_contexts?: readonly string[] | null | undefined;
}): RequiredCheckChange {
  const contexts = body.status_check_contexts;
  return {
    ...(body.enable_status_check === undefined
      ? {}
      : { enableStatusCheck: body.enable_status_check }),
    ...(contexts === undefined ? {} : { statusCheckContexts: contexts ?? [] }),
  };
}
