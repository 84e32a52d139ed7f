import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RemotePullService } from '../pulls/remote-pulls.service.ts';
import type { RepoService } from '../repos/repo.service.ts';
import type { Repository } from '../repos/repo.types.ts';
import { IncomingUpdatesService } from './incoming-updates.ts';
import type { LocalActors } from './local-actors.ts';
import { updateActivity } from './pull-offers.ts';
import type { RemoteDocuments } from './remote-documents.ts';

const UPSTREAM = 'https://up.example';
const PROPOSER = 'https://fork.example/bob';
const FORK = 'https://fork.example/repos/bob/tool';
const PULL_URL = `${UPSTREAM}/ada/tool/pulls/1`;
const repo = { id: 'repo-1', name: 'tool' } as Repository;
const pull = {
  id: 'pull-1',
  repoId: repo.id,
  number: 1,
  state: 'open',
  headBranch: 'feature',
  baseBranch: 'main',
  headSha: 'a'.repeat(40),
};

/** The service over a pull proposed by PROPOSER; counts what would fetch or move its head. */
function service() {
  const touched = { fetches: 0, advances: 0 };
  const pulls = {
    openedBy: async () => undefined,
    numbered: async () => pull,
    proposalOf: async () => ({ author: { actor: PROPOSER }, offerId: `${PROPOSER}#offer` }),
    advance: async () => {
      touched.advances += 1;
      return true;
    },
  } as unknown as Pick<RemotePullService, 'openedBy' | 'proposalOf' | 'numbered' | 'advance'>;
  const updates = new IncomingUpdatesService({
    actors: {
      urls: { base: UPSTREAM },
      get: async () => ({ kind: 'repo', repo }),
    } as unknown as LocalActors,
    documents: {
      loader: async () => {
        touched.fetches += 1;
        throw new Error('nothing may be fetched for this update');
      },
    } as unknown as RemoteDocuments,
    repos: { handle: () => ({}), findById: async () => repo } as unknown as Pick<
      RepoService,
      'handle' | 'findById'
    >,
    pulls,
    gate: { mayPropose: async () => ({ ok: true }) },
    reach: async () => {
      touched.fetches += 1;
      throw new Error('nothing may be fetched for this update');
    },
  });
  return { updates, touched };
}

const host = fc.constantFrom('fork.example', 'other.example', 'up.example');
const actorUrl = fc
  .tuple(host, fc.constantFrom('bob', 'eve', 'mallory'))
  .map(([h, name]) => `https://${h}/${name}`);

describe('updates of pull requests proposed from elsewhere', () => {
  it('only the proposer, naming the proposed branch on their own server, reaches a fetch', async () => {
    const forged = fc
      .record({
        sender: actorUrl,
        actor: actorUrl,
        originHost: host,
        branch: fc.constantFrom('feature', 'other', 'main'),
      })
      .filter(
        ({ sender, actor, originHost, branch }) =>
          !(
            sender === PROPOSER &&
            actor === PROPOSER &&
            originHost === 'fork.example' &&
            branch === 'feature'
          ),
      );
    await fc.assert(
      fc.asyncProperty(forged, async ({ sender, actor, originHost, branch }) => {
        const { updates, touched } = service();
        const activity = updateActivity({
          id: `${actor}#update`,
          actor,
          ticket: PULL_URL,
          origin: { repo: `https://${originHost}/repos/bob/tool`, branch },
          target: { repo: `${UPSTREAM}/repos/ada/tool`, branch: 'main' },
          patches: [],
        });
        await updates.run({ kind: 'ticket-update', sender, activity, receivedAt: 0 });
        expect(touched).toEqual({ fetches: 0, advances: 0 });
      }),
    );
  });

  it('the proposer’s update of the proposed branch goes on to read the fork', async () => {
    const { updates, touched } = service();
    const activity = updateActivity({
      id: `${PROPOSER}#update`,
      actor: PROPOSER,
      ticket: PULL_URL,
      origin: { repo: FORK, branch: 'feature' },
      target: { repo: `${UPSTREAM}/repos/ada/tool`, branch: 'main' },
      patches: [],
    });
    // Long after it came, an unreachable fork is given up rather than retried.
    await updates.run({ kind: 'ticket-update', sender: PROPOSER, activity, receivedAt: 0 });
    expect(touched.fetches).toBe(1);
    expect(touched.advances).toBe(0);
  });
});
