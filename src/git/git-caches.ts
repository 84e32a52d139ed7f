/**
 * What Kiln remembers of the repositories on disk, one set per `RepoPaths` and so per process:
 * the composition root builds it (src/caches.ts) and every handle carries it to the git
 * functions that read through it. Each is declared with its freshness and bound
 * (docs/architecture.md, "Caches").
 */
import { BoundedMap } from '../lib/bounded-map.ts';
import type { CacheRegistry } from '../lib/cache-registry.ts';
import { withDigitGroups } from '../lib/digit-groups.ts';
import { SizedLru } from '../lib/sized-lru.ts';
import type { HeadState } from './branches-present.ts';
import type { GitResult } from './command.ts';
import type { RememberedHead } from './head-file.ts';
import { KeptAnswersTally } from './kept-answers.ts';
import { OBJECT_ANSWERS_MAX_BYTES } from './object-answers.ts';
import type { RefListing } from './refs.ts';
import { RecentReadings, type RepositoryChangeClock, repositoryClock } from './repo-changes.ts';
import type { RepoHandle } from './repo-paths.ts';

/** Repositories whose facts are remembered; beyond this the oldest are forgotten. */
const REMEMBERED_REPOSITORIES = 10_000;
const SIGNATURE_VERDICTS_MAX_CHARS = 1024 * 1024;

/** The caches of repositories' files. */
export type GitCaches = {
  /** Branches and tags of a repository (refs.ts). */
  readonly refListings: RecentReadings<RefListing>;
  /** Whether a repository is on disk (repo-exists.ts). */
  readonly existence: RecentReadings<boolean>;
  /** Default branch and emptiness (branches-present.ts). */
  readonly headStates: RecentReadings<HeadState>;
  /** The text of HEAD files, with the identity of the file read (head-file.ts). */
  readonly headFiles: BoundedMap<string, RememberedHead>;
  /** Answers of git commands on full object ids (object-answers.ts). */
  readonly objectAnswers: SizedLru<string, GitResult>;
  /**
   * Handles already made by the `RepoPaths` these caches belong to, by owner and name as given:
   * every request that shows a repository resolves it, and a list page resolves one per item.
   */
  readonly handles: BoundedMap<string, RepoHandle>;
  /** The answers the cat-file processes keep, summed over the pool they are handed to. */
  readonly keptAnswers: KeptAnswersTally;
  /** Commits whose signatures git found good, one list per key set (push-rules.ts). */
  readonly signatureVerdicts: SizedLru<string, string>;
};

const repositories = `${withDigitGroups(REMEMBERED_REPOSITORIES)} repositories`;

/** Builds the git caches on `clock`, declaring each to `registry` when there is one. */
export function gitCaches(
  registry?: CacheRegistry,
  clock: RepositoryChangeClock = repositoryClock,
): GitCaches {
  const readings = <T>(name: string, key: string) => {
    const cache = new RecentReadings<T>(clock, REMEMBERED_REPOSITORIES);
    const declaration = { name, key, freshness: 'change-stamp' as const, bound: repositories };
    return registry ? registry.add(declaration, cache) : cache;
  };
  const headFiles = new BoundedMap<string, RememberedHead>(REMEMBERED_REPOSITORIES);
  const objectAnswers = new SizedLru<string, GitResult>(OBJECT_ANSWERS_MAX_BYTES);
  registry?.add(
    {
      name: 'git_head_files',
      key: 'HEAD file path, checked against its inode, size and times',
      freshness: 'change-stamp',
      bound: repositories,
    },
    headFiles,
  );
  registry?.add(
    {
      name: 'git_object_answers',
      key: 'repository, alternates state, command on full object ids',
      freshness: 'immutable',
      bound: '32 MiB of answers',
    },
    objectAnswers,
  );
  const handles = new BoundedMap<string, RepoHandle>(REMEMBERED_REPOSITORIES);
  registry?.add(
    {
      name: 'git_repository_handles',
      key: 'owner and name',
      freshness: 'immutable',
      bound: repositories,
    },
    handles,
  );
  const keptAnswers = new KeptAnswersTally();
  registry?.add(
    {
      name: 'git_cat_file_answers',
      key: 'cat-file process, full object id (and path)',
      freshness: 'immutable',
      bound: '512 KiB per process',
    },
    keptAnswers,
  );
  const signatureVerdicts = new SizedLru<string, string>(SIGNATURE_VERDICTS_MAX_CHARS);
  registry?.add(
    {
      name: 'git_signature_verdicts',
      key: 'allowed signers (their hash); the commit ids found good under them',
      freshness: 'immutable',
      bound: '1 Mi characters of commit ids',
    },
    signatureVerdicts,
  );
  return {
    handles,
    keptAnswers,
    signatureVerdicts,
    refListings: readings('git_ref_listings', 'repository path'),
    existence: readings('git_repository_exists', 'repository path'),
    headStates: readings('git_head_states', 'repository path'),
    headFiles,
    objectAnswers,
  };
}
