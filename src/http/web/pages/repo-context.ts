import type { FastifyRequest } from 'fastify';
import type { App } from '../../../app.ts';
import type { VisibleRepo } from '../../../domain/repos/repo.types.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { baseUrlOf } from '../../base-url.ts';
import { creatableOwners, visibleParent } from '../owners.ts';
import type { RepoFrame, RepoTab } from '../views/repo-frame.ts';

export type RepoParams = { owner: string; name: string };

/** The repository a page is about, with the viewer's access (NotFound for private ones). */
export async function openRepo(app: App, request: FastifyRequest): Promise<VisibleRepo> {
  const { owner, name } = request.params as RepoParams;
  return app.services.code.open(viewerUser(request.viewer), owner, name);
}

/** The frame of a repository page; the fork choices only when asked for (they cost a query). */
export async function frameOf(
  app: App,
  request: FastifyRequest,
  visible: VisibleRepo,
  tab: RepoTab,
  options: { fork?: boolean } = {},
): Promise<RepoFrame> {
  const viewer = viewerUser(request.viewer);
  const [parent, forkOwners, fediverse] = await Promise.all([
    visibleParent(app.services, viewer, visible.repo),
    options.fork && viewer ? creatableOwners(app.services, viewer) : undefined,
    tab === 'code' ? fediverseOf(app, visible) : undefined,
  ]);
  // Forking into the account that already holds the repository would only collide with itself.
  const targets = forkOwners?.filter((owner) => owner.id !== visible.repo.owner.id);
  return { visible, parent, tab, forkOwners: targets, fediverse };
}

/** How to follow a public repository from the fediverse, and who already does. */
async function fediverseOf(app: App, visible: VisibleRepo): Promise<RepoFrame['fediverse']> {
  const federation = app.services.federation;
  const { repo } = visible;
  if (!federation || repo.private) return undefined;
  const actor = federation.actors.ofRepo(repo);
  const [stars, followers] = await Promise.all([
    federation.stars.count(repo.id),
    federation.followers.count(actor.key),
  ]);
  return { actorUrl: actor.id, stars, followers };
}

/** `https://host/owner/name.git` as seen from this request. */
export function cloneUrlOf(app: App, request: FastifyRequest, visible: VisibleRepo): string {
  const { repo } = visible;
  return `${baseUrlOf(request, app.config)}/${repo.owner.handle}/${repo.name}.git`;
}
