import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { OutgoingPull } from '../../../domain/federation/outgoing-pulls.service.ts';
import type { ProposalNote } from '../../../domain/federation/proposal-notes.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { errorResponses } from '../../../present/schemas/common.ts';
import { Type } from '../../../present/schemas/type.ts';
import { requireUser } from '../../auth/api-auth.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { federationOf } from './federation.routes.ts';
import { RepoParams, repoParamsWith } from './params.ts';

/** What the routes use: federation (absent when off). */
export type FederationPullRouteDeps = {
  readonly services: Pick<DomainServices, 'federation'>;
};

const tags = ['federation'];
const ProposeBody = Type.Object({
  head: Type.String({ minLength: 1, maxLength: 255 }),
  base: Type.String({ minLength: 1, maxLength: 255 }),
  title: Type.String({ minLength: 1, maxLength: 255 }),
  body: Type.Optional(Type.String({ maxLength: 1024 * 1024 })),
});
const OutgoingPullSchema = Type.Object({
  id: Type.String(),
  head: Type.String(),
  base: Type.String(),
  title: Type.String(),
  upstream: Type.String(),
  state: Type.Union([
    Type.Literal('pending'),
    Type.Literal('open'),
    Type.Literal('merged'),
    Type.Literal('closed'),
    Type.Literal('rejected'),
  ]),
  url: Type.Union([Type.String(), Type.Null()]),
  reason: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});

const ProposalParams = repoParamsWith({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const ProposalNoteSchema = Type.Object({
  id: Type.String(),
  user: Type.Object({ login: Type.String(), html_url: Type.String() }),
  body: Type.String(),
  path: Type.Union([Type.String(), Type.Null()]),
  line: Type.Union([Type.Integer(), Type.Null()]),
  html_url: Type.String(),
  created_at: Type.String(),
  /** The note this one answers in a review thread; null when it is about the pull. */
  in_reply_to: Type.Union([Type.String(), Type.Null()]),
  /** On a review's body: `approved`, `changes_requested` or `commented`. */
  review_state: Type.Union([Type.String(), Type.Null()]),
});

/** A review comment made upstream on a proposal, on the wire (`html_url` is upstream). */
function noteToWire(note: ProposalNote) {
  return {
    id: note.id,
    user: { login: note.login, html_url: note.actor },
    body: note.body,
    path: note.path,
    line: note.line,
    html_url: note.id,
    created_at: new Date(note.createdAt).toISOString(),
    in_reply_to: note.inReplyTo ?? null,
    review_state: note.reviewState ?? null,
  };
}

/** An outgoing pull request on the wire (snake case, RFC 3339 time). */
function toWire(pull: OutgoingPull) {
  return {
    id: pull.id,
    head: pull.head,
    base: pull.base,
    title: pull.title,
    upstream: pull.upstream,
    state: pull.state,
    url: pull.url,
    reason: pull.reason,
    created_at: new Date(pull.createdAt).toISOString(),
  };
}

/**
 * Proposing pull requests from a fork of a repository of another server to that upstream
 * (Kiln's own routes, beside `federation/upstream`): 202 with the outgoing pull request while
 * the upstream has not answered, and the list with each one's state. 404 when federation is off
 * or the repository is no such fork.
 */
export function registerFederationPullRoutes(
  parent: FastifyInstance,
  deps: FederationPullRouteDeps,
): void {
  const server = parent.withTypeProvider<TypeBoxTypeProvider>();
  const federation = federationOf(deps.services);

  server.post(
    '/repos/:owner/:name/federation/pulls',
    {
      schema: {
        summary: 'Propose a branch of this fork to its upstream on another server',
        tags,
        params: RepoParams,
        body: ProposeBody,
        response: { 202: OutgoingPullSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const user = requireUser(request);
      const { owner, name } = request.params;
      const pull = await federation().pulls.proposals.propose(user, owner, name, request.body);
      return reply.status(202).send(toWire(pull));
    },
  );
  server.get(
    '/repos/:owner/:name/federation/pulls',
    {
      schema: {
        summary: 'The pull requests proposed from this fork to its upstream',
        tags,
        params: RepoParams,
        response: { 200: Type.Array(OutgoingPullSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { owner, name } = request.params;
      const list = await federation().pulls.proposals.list(viewerUser(request.viewer), owner, name);
      return list.map(toWire);
    },
  );
  server.get(
    '/repos/:owner/:name/federation/pulls/:id/comments',
    {
      schema: {
        summary: 'The review comments the upstream made on a proposal, oldest first',
        tags,
        params: ProposalParams,
        response: { 200: Type.Array(ProposalNoteSchema), ...errorResponses },
      },
    },
    async (request) => {
      const { owner, name, id } = request.params;
      const notes = await federation().pulls.proposalNotes.list(
        viewerUser(request.viewer),
        owner,
        name,
        id,
      );
      return notes.map(noteToWire);
    },
  );
}
