import type { RunnersTable } from '../../db/tables.ts';
import type { RunnerStatus } from './runner.types.ts';

/**
 * A runner seen within this window counts as online. Runners poll every 2–5 s (some every 30 s),
 * so a minute of silence means it is gone; Gitea uses the same threshold.
 */
export const ONLINE_WINDOW_MS = 60_000;

/**
 * last_seen_at is written at most this often per runner: a polling runner would otherwise turn
 * every authenticated call into a write. Well below ONLINE_WINDOW_MS, so it never makes a live
 * runner look offline.
 */
export const SEEN_RESOLUTION_MS = 5_000;

/**
 * The status a runner is shown and sent with. The stored status says what the server last
 * decided (`idle`, `active` while it holds a task, `offline` after the zombie sweep failed its
 * task); a runner that has not called for `ONLINE_WINDOW_MS` is offline whatever was stored. Pure.
 *
 * @example
 * effectiveStatus('idle', Date.now() - 120_000, Date.now()) // 'offline'
 */
export function effectiveStatus(
  stored: RunnersTable['status'],
  lastSeenAt: number,
  now: number,
): RunnerStatus {
  if (stored === 'offline') return 'offline';
  if (now - lastSeenAt > ONLINE_WINDOW_MS) return 'offline';
  return stored;
}

/** Whether an authenticated call should write last_seen_at (and lift a stored `offline`). */
export function shouldRecordSeen(
  stored: RunnersTable['status'],
  lastSeenAt: number,
  now: number,
): boolean {
  return stored === 'offline' || now - lastSeenAt >= SEEN_RESOLUTION_MS;
}
