import type { Federation } from '../../../domain/federation/federation.ts';
import type { Repository } from '../../../domain/repos/repo.types.ts';
import type { ContentRenderer } from '../render/content-renderer.ts';
import type { ProposalWithNotes } from '../views/repo-frame.ts';

/**
 * What a fork of a repository elsewhere proposed to its upstream, each proposal with the notes
 * its upstream sent. Invariant: a note's body is markdown from another server and is shown only
 * as the renderer makes it of a local comment (its sanitiser, its size bounds, batched like a
 * pull's review comments); never as markup of its own.
 */
export async function forkProposals(
  federation: Pick<Federation, 'pulls'>,
  repo: Repository,
  renderer: Pick<ContentRenderer, 'markdownList'>,
): Promise<ProposalWithNotes[]> {
  const { proposals, proposalNotes } = federation.pulls;
  const listed = await Promise.all(
    (await proposals.proposalsOf(repo)).map(async (proposal) => ({
      proposal,
      notes: await proposalNotes.notesOf(repo, proposal.id),
    })),
  );
  const bodies = await renderer.markdownList(
    listed.flatMap(({ notes }) => notes.map((note) => note.body)),
  );
  let at = 0;
  return listed.map(({ proposal, notes }) => ({
    ...proposal,
    notes: notes.map((note) => ({ ...note, bodyHtml: bodies[at++] })),
  }));
}
