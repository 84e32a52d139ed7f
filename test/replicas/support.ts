import { sql } from 'kysely';
import type { Db } from '../../src/db/database.ts';
import type { GitClient } from '../support/git.ts';
import { Browser } from '../support/http.ts';

/** A browser signed in through the real form of the server at `base`. */
export async function signIn(base: string, login: string, password: string): Promise<Browser> {
  const browser = new Browser(base);
  await browser.get('/login');
  const response = await browser.post('/login', { login, password });
  if (response.status !== 303) throw new Error(`sign-in failed: ${response.status}`);
  return browser;
}

/**
 * Commits `files` on top of main as the server at `url` has it and pushes to main; when the
 * push is refused because main moved meanwhile, starts again from the new tip. Returns the
 * commit the server acknowledged.
 */
export async function pushWithRetry(
  git: GitClient,
  work: string,
  url: string,
  files: Record<string, string>,
): Promise<string> {
  for (let attempt = 0; attempt < 60; attempt++) {
    await git.ok(['fetch', '-q', url, 'main'], { cwd: work });
    await git.ok(['checkout', '-q', '-B', 'main', 'FETCH_HEAD'], { cwd: work });
    const sha = await git.commit(work, files, `push ${Object.keys(files).join(' ')}`);
    const pushed = await git.run(['push', '-q', url, 'HEAD:refs/heads/main'], { cwd: work });
    if (pushed.code === 0) return sha;
    if (
      !/rejected|failed to update|cannot lock|non-fast-forward|fetch first/i.test(pushed.stderr)
    ) {
      throw new Error(`push failed for another reason:\n${pushed.stderr}`);
    }
  }
  throw new Error('push never got through');
}

/**
 * Records, with a PostgreSQL trigger, every update that sets a CI task to `failure`, so a test
 * can tell "failed once" from "failed twice by two sweeps" (the second would overwrite the first
 * and leave the row looking the same).
 */
export async function installFailureAudit(db: Db): Promise<void> {
  await sql
    .raw(`
    create table if not exists test_task_failures (task_id bigint not null);
    create or replace function test_record_task_failure() returns trigger language plpgsql as $$
    begin
      if new.status = 'failure' then
        insert into test_task_failures (task_id) values (new.id);
      end if;
      return new;
    end $$;
    drop trigger if exists test_task_failure on ci_tasks;
    create trigger test_task_failure after update on ci_tasks
      for each row execute function test_record_task_failure();
  `)
    .execute(db);
}

/** How many times each of `ids` was set to `failure`, in the order of `ids`. */
export async function readFailureAudit(
  db: Db,
  ids: readonly number[],
): Promise<{ task_id: number; failures: number }[]> {
  const { rows } = await sql<{ task_id: string; failures: string }>`
    select task_id, count(*) as failures from test_task_failures group by task_id`.execute(db);
  const counts = new Map(rows.map((row) => [Number(row.task_id), Number(row.failures)]));
  return ids.map((id) => ({ task_id: id, failures: counts.get(id) ?? 0 }));
}
