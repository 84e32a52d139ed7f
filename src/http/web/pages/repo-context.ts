import type { FastifyRequest } from 'fastify';
import type { Config } from '../../../config/config.ts';
import { visibleToAnyone } from '../../../domain/repos/repo.policy.ts';
import type { VisibleRepo } from '../../../domain/repos/repo.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import { sshCloneUrl } from '../../../present/ssh-url.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { baseUrlOf } from '../../base-url.ts';
import { creatableOwners, visibleParent } from '../owners.ts';
import type { RepoParams } from '../page-params.ts';
import type { ContentRenderer } from '../render/content-renderer.ts';
import type { RepoFrame, RepoTab } from '../views/repo-frame.ts';
import { forkProposals } from './fork-proposals.ts';

/** What a repository page needs to open its repository and draw the frame around it. */
export type RepoPageDeps = {
  readonly services: Pick<DomainServices, 'code' | 'repos' | 'orgs' | 'users' | 'federation'>;
  readonly config: Pick<Config, 'baseUrl' | 'http' | 'ssh'>;
};

/** The repository a page is about, with the viewer's access (NotFound for private ones). */
export async function openRepo(
  deps: { readonly services: Pick<DomainServices, 'code'> },
  request: Pick<FastifyRequest, 'viewer'> & { readonly params: RepoParams },
): Promise<VisibleRepo> {
  const { owner, name } = request.params;
  return deps.services.code.open(viewerUser(request.viewer), owner, name);
}

/**
 * The frame of a repository page; the fork choices only when asked for (they cost a query), and
 * a remote fork's proposals only where a renderer is given for the notes on them.
 */
export async function frameOf(
  deps: RepoPageDeps,
  request: FastifyRequest,
  visible: VisibleRepo,
  tab: RepoTab,
  options: { fork?: boolean; renderer?: Pick<ContentRenderer, 'markdownList'> } = {},
): Promise<RepoFrame> {
  const viewer = viewerUser(request.viewer);
  const [parent, remoteParent, forkOwners, fediverse] = await Promise.all([
    visibleParent(deps.services, viewer, visible.repo),
    remoteParentOf(deps, visible),
    options.fork && viewer ? creatableOwners(deps.services, viewer) : undefined,
    tab === 'code' ? fediverseOf(deps, visible) : undefined,
  ]);
  // Forking into the account that already holds the repository would only collide with itself.
  const targets = forkOwners?.filter((owner) => owner.id !== visible.repo.owner.id);
  // What this fork proposed to its upstream elsewhere, on the pages that render its notes.
  const federation = remoteParent && options.renderer ? deps.services.federation : undefined;
  const proposals =
    federation && options.renderer
      ? await forkProposals(federation, visible.repo, options.renderer)
      : undefined;
  return { visible, parent, remoteParent, tab, forkOwners: targets, fediverse, proposals };
}

/** The remote repository a fork of one elsewhere was made from (none for local forks). */
async function remoteParentOf(
  deps: { readonly services: Pick<DomainServices, 'federation'> },
  visible: VisibleRepo,
): Promise<string | undefined> {
  const federation = deps.services.federation;
  if (!federation || visible.repo.parentId) return undefined;
  return (await federation.forks.upstreamOf(visible.repo))?.actor;
}

/** How to follow a public repository from the fediverse, and who already does. */
async function fediverseOf(
  deps: { readonly services: Pick<DomainServices, 'federation'> },
  visible: VisibleRepo,
): Promise<RepoFrame['fediverse']> {
  const federation = deps.services.federation;
  const { repo } = visible;
  if (!federation || !visibleToAnyone(repo)) return undefined;
  const actor = federation.actors.ofRepo(repo);
  const [stars, followers] = await Promise.all([
    federation.stars.count(repo.id),
    federation.followers.count(actor.key),
  ]);
  return { actorUrl: actor.id, stars, followers };
}

/** `https://host/owner/name.git` as seen from this request. */
/** The SSH clone URL of the repository a page shows; empty when SSH is off. */
export function sshCloneUrlOf(
  deps: { readonly config: Pick<Config, 'baseUrl' | 'http' | 'ssh'> },
  request: FastifyRequest,
  visible: VisibleRepo,
): string {
  const { repo } = visible;
  const base = baseUrlOf(request, deps.config);
  return sshCloneUrl(deps.config.ssh, base, repo.owner.handle, repo.name);
}

export function cloneUrlOf(
  deps: { readonly config: Pick<Config, 'baseUrl' | 'http'> },
  request: FastifyRequest,
  visible: VisibleRepo,
): string {
  const { repo } = visible;
  return `${baseUrlOf(request, deps.config)}/${repo.owner.handle}/${repo.name}.git`;
}
