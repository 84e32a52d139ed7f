import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { parseOrgVisibility } from '../../../domain/orgs/org-input.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { toApiOrganization } from '../../../present/org.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { ApiOrganizationSchema, CreateOrgOptionSchema } from '../../../present/schemas/org.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { type BaseUrlConfig, baseUrlOf } from '../../base-url.ts';

/** What the routes use: organisations, and the configuration for base URLs. */
export type OrgRouteDeps = {
  readonly services: Pick<DomainServices, 'orgs'>;
  readonly config: BaseUrlConfig;
};

/**
 * Organisations, Gitea-compatible: `POST /orgs` creates one with the caller as its first owner.
 * Reserved names (listed admin handles; action owners, except for an administrator) are 422.
 */
export function registerOrgRoutes(parent: FastifyInstance, deps: OrgRouteDeps): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const { orgs } = deps.services;

  server.post(
    '/orgs',
    {
      schema: {
        summary: 'Create an organisation',
        tags: ['organization'],
        body: CreateOrgOptionSchema,
        response: { 201: ApiOrganizationSchema, ...errorResponses, 409: errorResponses[404] },
      },
    },
    async (request, reply) => {
      const actor = requireUser(request);
      const created = await orgs.createOrg({
        name: request.body.username,
        owner: actor,
        fullName: request.body.full_name ?? '',
        visibility: parseOrgVisibility(request.body.visibility ?? 'public'),
      });
      const { org, settings } = await orgs.viewOf(actor, created);
      const baseUrl = baseUrlOf(request, deps.config);
      return reply.status(201).send(toApiOrganization(org, settings, { baseUrl }));
    },
  );
}
