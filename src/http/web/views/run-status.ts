import type { CiTaskStatus, WorkflowRunStatus } from '../../../domain/ci/ci.types.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';

type AnyStatus = WorkflowRunStatus | CiTaskStatus;

/** Icon and Primer colour class per status, shared by runs and jobs (which spell it lower-case). */
const LOOKS: Record<string, { glyph: string; colour: string; label: string }> = {
  success: { glyph: 'check-circle-fill', colour: 'color-fg-success', label: 'Success' },
  failure: { glyph: 'x-circle-fill', colour: 'color-fg-danger', label: 'Failure' },
  cancelled: { glyph: 'stop', colour: 'color-fg-muted', label: 'Cancelled' },
  skipped: { glyph: 'skip', colour: 'color-fg-muted', label: 'Skipped' },
  running: { glyph: 'dot-fill', colour: 'color-fg-attention', label: 'Running' },
  pending: { glyph: 'clock', colour: 'color-fg-attention', label: 'Waiting' },
  blocked: { glyph: 'clock', colour: 'color-fg-muted', label: 'Blocked' },
};

/** The statuses a runs list can be filtered by, in the order the filter offers them. */
export const RUN_STATUSES: readonly WorkflowRunStatus[] = [
  'RUNNING',
  'PENDING',
  'BLOCKED',
  'SUCCESS',
  'FAILURE',
  'CANCELLED',
  'SKIPPED',
];

/** The human name of a status ("Success", "Waiting"). */
export function statusLabel(status: AnyStatus): string {
  return LOOKS[status.toLowerCase()]?.label ?? status;
}

/** A status as a coloured icon with its name for screen readers and a tooltip. */
export function statusIcon(status: AnyStatus): Html {
  const look = LOOKS[status.toLowerCase()] ?? LOOKS.blocked;
  const label = statusLabel(status);
  return html`<span class="${look?.colour ?? ''}" title="${label}" data-status="${status.toLowerCase()}">${icon(look?.glyph ?? 'clock', { label })}</span>`;
}

/** Whether a run or job may still change (the page refreshes itself, Cancel is offered). */
export function isUnfinished(status: AnyStatus): boolean {
  return ['pending', 'blocked', 'running'].includes(status.toLowerCase());
}

/** "1h 2m", "3m 4s", "5s"; from start to stop, or to now while running; "—" before it starts. */
export function duration(startedAt: Date | null, stoppedAt: Date | null, now = new Date()): string {
  if (startedAt === null) return '—';
  const seconds = Math.max(
    0,
    Math.round(((stoppedAt ?? now).getTime() - startedAt.getTime()) / 1000),
  );
  const hours = Math.floor(seconds / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (hours > 0) return `${hours}h ${minutes}m`;
  if (minutes > 0) return `${minutes}m ${seconds % 60}s`;
  return `${seconds}s`;
}
