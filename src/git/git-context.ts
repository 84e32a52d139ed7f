import type { CatFilePool } from './cat-file-pool.ts';
import type { RefUpdatePool } from './ref-update-pool.ts';
import type { RepoPaths } from './repo-paths.ts';

/** The git layer's long-lived parts. */
export type GitContext = {
  readonly paths: RepoPaths;
  readonly catFiles: CatFilePool;
  readonly refUpdates: RefUpdatePool;
};
