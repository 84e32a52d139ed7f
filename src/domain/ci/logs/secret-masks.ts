import { BoundedMap } from '../../../lib/bounded-map.ts';
import type { CacheRegistry } from '../../../lib/cache-registry.ts';
import { secretLogForms } from '../ci-names.ts';
import type { CiSecretService } from '../ci-secret.service.ts';

/**
 * What hides a task's secrets in the log rows its runner uploads: every form a secret can take
 * in a log line (ci-names.ts) becomes `***` before a row is stored, so no secret reaches a log
 * whoever reads it. The values are read once per running task and kept until its log is sealed;
 * after a restart or on another replica they are read again.
 */
export class SecretMasks {
  readonly #secrets: Pick<CiSecretService, 'secretsForTask'>;
  /** Secret values to mask, per running task, longest first. */
  readonly #values = new BoundedMap<number, string[]>(1_000);

  constructor(secrets: Pick<CiSecretService, 'secretsForTask'>, caches?: CacheRegistry) {
    this.#secrets = secrets;
    caches?.add(
      { name: 'ci_task_masks', key: 'task id', freshness: 'immutable', bound: '1,000 tasks' },
      this.#values,
    );
  }

  /** What masks the task's secrets in a line; undefined when the task has none to mask. */
  async maskFor(taskId: number): Promise<((text: string) => string) | undefined> {
    let values = this.#values.get(taskId);
    if (values === undefined) {
      const secrets = Object.values(await this.#secrets.secretsForTask(taskId));
      // Longest first, so a secret containing another is masked whole.
      values = [...new Set(secrets.flatMap(secretLogForms))].sort((a, b) => b.length - a.length);
      this.#values.set(taskId, values);
    }
    if (values.length === 0) return undefined;
    const secrets = values;
    // Most lines hold no secret: a search is cheaper than splitting every line by every value.
    return (text) =>
      secrets.reduce(
        (masked, secret) => (masked.includes(secret) ? masked.split(secret).join('***') : masked),
        text,
      );
  }

  /** Drops the task's values once its log can take no more rows. */
  forget(taskId: number): void {
    this.#values.delete(taskId);
  }
}
