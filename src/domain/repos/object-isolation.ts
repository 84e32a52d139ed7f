import { type Loan, listLoans, refuseLoans } from '../../git/object-loans.ts';
import { objectsDir } from '../../git/object-store.ts';
import { repositoryExists } from '../../git/repo-exists.ts';
import type { RepoHandle, RepoPaths } from '../../git/repo-paths.ts';
import { detachFromAlternates } from '../../git/repository.ts';

/**
 * The object isolation invariant, and its one enforcement point.
 *
 * A repository serves every object of every store it borrows from (git alternates), by id, to
 * whoever may read it. So: **a repository borrows only from the object store of a public
 * repository that exists under that name now.** Anyone may read a public repository, so its
 * readers are a superset of every borrower's; a private, deleted or not-yet-recreated lender's
 * are not. Borrowing is read from the alternates files, never from fork links in the database,
 * so a hand-written file, a crash half-way or a name reused is judged like any other loan.
 *
 * `enforce` gives every repository that breaks the rule its own copies and drops the loan;
 * whatever borrows from such a repository, directly or further down, is detached first, since
 * a detached store keeps only what its own refs reach. Callers run it before a change that
 * would break the rule (a lender withdrawn: made private or deleted), again after it (a fork
 * made meanwhile), and at start-up.
 */

export type IsolationDeps = {
  readonly paths: RepoPaths;
  /** Whether the database holds a public repository at this handle's owner and name. */
  readonly isPublic: (repo: RepoHandle) => Promise<boolean>;
  /**
   * Called once a repository borrows no more: git processes kept open on it (cat-file) read
   * its alternates when they started and would go on serving the store it no longer borrows.
   */
  readonly released: (repo: RepoHandle) => Promise<void>;
  /**
   * Runs a repair while nothing repacks the repository: a repack of a borrower with `-l` leaves
   * out objects it finds in the store it borrows from, and would delete the copies a repair
   * has just linked in. Absent: repairs run as they come.
   */
  readonly exclusive?: <T>(repo: RepoHandle, work: () => Promise<T>) => Promise<T>;
};

/** A repository that borrowed what it may not, and what was done about it. */
export type IsolationRepair = {
  /** `owner/name` of the repository. */
  readonly repository: string;
  /** The stores it borrowed from when found. */
  readonly stores: readonly string[];
  /**
   * `detached`: it has its own copies now; `refused`: copies could not be made (the store is
   * gone or broken), so the loan was cut anyway and objects it reached through it are missing.
   */
  readonly outcome: 'detached' | 'refused';
  readonly error?: unknown;
};

export class ObjectIsolation {
  readonly #deps: IsolationDeps;

  constructor(deps: IsolationDeps) {
    this.#deps = deps;
  }

  /**
   * Repairs every loan that breaks the rule, counting the `withdrawn` repositories as lenders no
   * more (one about to be made private or deleted). Returns what it repaired, deepest first.
   */
  async enforce(withdrawn: readonly RepoHandle[] = []): Promise<IsolationRepair[]> {
    const loans = await listLoans(this.#deps.paths);
    if (loans.length === 0) return [];
    const gone = new Set(withdrawn.map((repo) => repo.path));
    const verdicts = new Map<string, Promise<boolean>>();
    const mayLend = (lender: RepoHandle | undefined): Promise<boolean> => {
      if (!lender || gone.has(lender.path)) return Promise.resolve(false);
      let verdict = verdicts.get(lender.path);
      if (!verdict) {
        verdict = this.#mayLend(lender);
        verdicts.set(lender.path, verdict);
      }
      return verdict;
    };
    const offenders: RepoHandle[] = [];
    for (const loan of loans) {
      if (!(await mayLend(loan.lender))) offenders.push(loan.borrower);
    }
    const repairs: IsolationRepair[] = [];
    for (const repo of detachOrder(offenders, loans)) {
      const exclusive = this.#deps.exclusive ?? ((_, work) => work());
      repairs.push(await exclusive(repo, () => repair(repo, loans)));
      await this.#deps.released(repo);
    }
    return repairs;
  }

  async #mayLend(lender: RepoHandle): Promise<boolean> {
    return (await repositoryExists(lender)) && (await this.#deps.isPublic(lender));
  }
}

/**
 * The offenders and everything that borrows from them, transitively, each after all of its own
 * borrowers: a repository is detached while the stores it reaches through are still linked.
 */
function detachOrder(offenders: readonly RepoHandle[], loans: readonly Loan[]): RepoHandle[] {
  const order: RepoHandle[] = [];
  const seen = new Set<string>();
  const visit = (repo: RepoHandle) => {
    // A cycle of alternates (only a hand-made one) is cut where it is met again.
    if (seen.has(repo.path)) return;
    seen.add(repo.path);
    const store = objectsDir(repo.path);
    for (const loan of loans) if (loan.store === store) visit(loan.borrower);
    order.push(repo);
  };
  for (const repo of offenders) visit(repo);
  return order;
}

async function repair(repo: RepoHandle, loans: readonly Loan[]): Promise<IsolationRepair> {
  const stores = loans.filter((loan) => loan.borrower.path === repo.path).map((loan) => loan.store);
  try {
    await detachFromAlternates(repo);
    return { repository: repo.key, stores, outcome: 'detached' };
  } catch (error) {
    await refuseLoans(repo);
    return { repository: repo.key, stores, outcome: 'refused', error };
  }
}
