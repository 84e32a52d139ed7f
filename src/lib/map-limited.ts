/**
 * `items.map(work)` with at most `limit` calls in flight, results in the order of `items`.
 * For many small independent reads (a file per repository): one at a time leaves the thread pool
 * idle between round trips, all at once queues thousands of them behind every other read.
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  // One iterator shared by the workers: each takes the next item when it is free.
  const queue = items.entries();
  const worker = async (): Promise<void> => {
    for (const [index, item] of queue) results[index] = await work(item);
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
