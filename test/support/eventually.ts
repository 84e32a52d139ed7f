/**
 * Polls `check` every 100 ms until it holds or `timeoutMs` has passed; resolves to its last
 * answer. For what a server does in the background or a process finishes on its own.
 */
export async function eventually(
  check: () => Promise<boolean>,
  timeoutMs = 20_000,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}
