import type { FastifyInstance } from 'fastify';
import { NotFound } from '../../../domain/errors.ts';
import type { HousekeepingRun } from '../../../domain/repos/housekeeping.types.ts';
import type { DomainServices } from '../../../domain/services.ts';
import type { ObjectCounts } from '../../../git/housekeeping.ts';
import { viewerUser } from '../../auth/viewer.ts';
import { type Html, html } from '../html.ts';
import type { Pages } from '../page.ts';
import { adminFrame, adminTable } from '../views/admin-frame.ts';
import { when } from './admin-runner-tables.view.ts';

const CELL = 'p-2 border-top';
const RECENT_RUNS = 50;

/** What the housekeeping admin page uses. */
export type AdminHousekeepingDeps = {
  readonly services: Pick<DomainServices, 'admins' | 'housekeeping'>;
};

/** A repository of the run history, with what its object directory holds now. */
type RepoNow = { readonly label: string; readonly counts: ObjectCounts | undefined };

function runRow(run: HousekeepingRun): Html {
  const seconds = ((run.finishedAt - run.startedAt) / 1000).toFixed(2);
  const outcome =
    run.outcome === 'ok'
      ? html`<span class="Label Label--success">ok</span>`
      : html`<span class="Label Label--danger" title="${run.error ?? ''}">failed</span>`;
  return html`<tr>
    <td class="${CELL}"><code>${run.repoKey}</code></td>
    <td class="${CELL}">${run.kind}</td>
    <td class="${CELL}">${outcome}</td>
    <td class="${CELL}">${when(new Date(run.startedAt))}</td>
    <td class="${CELL}">${seconds} s</td>
    <td class="${CELL}">${run.packsBefore} → ${run.packsAfter}</td>
    <td class="${CELL}">${run.looseBefore} → ${run.looseAfter}</td>
    <td class="${CELL} f6 color-fg-muted">${run.holder}</td>
  </tr>`;
}

function repoRow(repo: RepoNow): Html {
  return html`<tr>
    <td class="${CELL}"><code>${repo.label}</code></td>
    <td class="${CELL}">${repo.counts?.packs ?? '–'}</td>
    <td class="${CELL}">${repo.counts?.looseObjects ?? '–'}</td>
  </tr>`;
}

function table(headings: readonly string[], rows: readonly Html[], empty: string): Html {
  if (rows.length === 0) return html`<p class="color-fg-muted">${empty}</p>`;
  return adminTable(headings, rows);
}

function page(runs: readonly HousekeepingRun[], repos: readonly RepoNow[]): Html {
  return adminFrame(
    'housekeeping',
    html`<div>
    <h1 class="h2 mb-3">Housekeeping</h1>
    <p class="color-fg-muted mb-3">Repositories are repacked in the background after pushes; see docs/repositories.md.</p>
    <h2 class="h4 mb-2">Repositories now</h2>
    ${table(['Repository', 'Packs', 'Loose objects'], repos.map(repoRow), 'No repository has been maintained yet.')}
    <h2 class="h4 mb-2">Recent runs</h2>
    ${table(['Repository', 'Kind', 'Outcome', 'Started', 'Took', 'Packs', 'Loose objects', 'Process'], runs.map(runRow), 'No runs yet.')}
  </div>`,
  );
}

/**
 * `/admin/housekeeping`: the latest maintenance runs of every replica, and the pack and loose
 * object counts of the repositories they concerned, read from disk now. Admins only; 404 to
 * everyone else, like every `/admin` page.
 */
export function registerAdminHousekeepingRoutes(
  server: FastifyInstance,
  deps: AdminHousekeepingDeps,
  pages: Pages,
): void {
  server.get('/admin/housekeeping', async (request, reply) => {
    const user = viewerUser(request.viewer);
    if (user === undefined || !deps.services.admins.isAdmin(user))
      throw new NotFound('no such page');
    reply.header('Cache-Control', 'no-store');
    const runs = await deps.services.housekeeping.listRecentRuns(RECENT_RUNS);
    const seen = new Map<string, RepoNow>();
    for (const run of runs) {
      if (seen.has(run.repoKey)) continue;
      const counts = await deps.services.housekeeping
        .countObjects(run.repoKey)
        .catch(() => undefined);
      seen.set(run.repoKey, { label: run.repoKey, counts });
    }
    const body = page(runs, [...seen.values()]);
    return pages.send(request, reply, { title: 'Housekeeping · Admin', body });
  });
}
