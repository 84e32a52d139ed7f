import type { FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { Type } from '../../present/schemas/type.ts';

/*
 * The path parameters of the pages, as schemas: a route names one in `schema.params` and its
 * handler reads `request.params` typed from it (the TypeBox type provider), with no cast.
 * Parameters are strings whatever the path holds, so these never refuse a request: what a value
 * must look like (a number, a name) is still decided where it is read, with the page that says
 * so. No length limits here for the same reason: a page answers a long name with its own 404.
 */

/** A page request whose path parameters are `P`, as its route's schema declares them. */
export type PageRequest<P> = FastifyRequest & { readonly params: P };

const owner = Type.String();
const name = Type.String();

/** `/{owner}` */
export const OwnerParams = Type.Object({ owner });

/** `/org/{org}/…`: an organisation's members and settings. */
export const OrgParams = Type.Object({ org: Type.String() });
export type OrgParams = Static<typeof OrgParams>;

/** `/admin/users/{handle}/…`: one person in the admin pages. */
export const HandleParams = Type.Object({ handle: Type.String() });

/** `/repos/{owner}/{name}/…`: the one definition of a repository page's parameters. */
export const RepoParams = Type.Object({ owner, name });
export type RepoParams = Static<typeof RepoParams>;

/** `/repos/{owner}/{name}/…/*`: a ref, path or tag after the repository. */
export const RepoRestParams = Type.Object({ owner, name, '*': Type.Optional(Type.String()) });
export type RepoRestParams = Static<typeof RepoRestParams>;

/** `/repos/{owner}/{name}/pulls/{number}/…` */
export const PullParams = Type.Object({ owner, name, number: Type.String() });
export type PullParams = Static<typeof PullParams>;

/** `/repos/{owner}/{name}/pulls/{number}/comments/{id}/…`: a review comment by its wire id. */
export const PullCommentParams = Type.Object({
  owner,
  name,
  number: Type.String(),
  id: Type.String(),
});
export type PullCommentParams = Static<typeof PullCommentParams>;

/** `/repos/{owner}/{name}/actions/runs/{run}/…` */
export const RunParams = Type.Object({ owner, name, run: Type.String() });
export type RunParams = Static<typeof RunParams>;

/** `/repos/{owner}/{name}/actions/runs/{run}/jobs/{job}/…` */
export const JobParams = Type.Object({ owner, name, run: Type.String(), job: Type.String() });
export type JobParams = Static<typeof JobParams>;

/** `/repos/{owner}/{name}/commit/{sha}` */
export const CommitParams = Type.Object({ owner, name, sha: Type.String() });

/** `/repos/{owner}/{name}/settings/{ci/tokens|ci/runners|hooks}/{id}/…` */
export const RepoIdParams = Type.Object({ owner, name, id: Type.String() });

/** `/repos/{owner}/{name}/settings/ci/secrets/{secret}/…` */
export const SecretParams = Type.Object({ owner, name, secret: Type.String() });

/** `/repos/{owner}/{name}/settings/ci/variables/{variable}/…` */
export const VariableParams = Type.Object({ owner, name, variable: Type.String() });

/** `/repos/{owner}/{name}/settings/hooks/{id}/deliveries/{delivery}/…` */
export const DeliveryParams = Type.Object({
  owner,
  name,
  id: Type.String(),
  delivery: Type.String(),
});

/** `/assets/{name}` */
export const AssetParams = Type.Object({ name });

/** `…/{id}/…`: a token, runner or session named by its id. */
export const IdParams = Type.Object({ id: Type.String() });

/** A query value as a client may send it (missing, once, repeated): checked where it is read. */
export const QueryValue = Type.Optional(Type.Unknown());
