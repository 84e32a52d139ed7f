import type { TaskReportStore } from './task-report.store.ts';

const MAX_OUTPUT_KEY_BYTES = 255;
const MAX_OUTPUT_VALUE_BYTES = 1024 * 1024;
/**
 * Outputs stored per task. A job declares its outputs by name, a handful as a rule; an UpdateTask
 * body of a megabyte could otherwise carry a hundred thousand, each a row written and read back.
 */
const MAX_OUTPUTS_PER_TASK = 1000;

/**
 * Stores the outputs that are valid and new, at most MAX_OUTPUTS_PER_TASK per task (the first
 * write of a name wins); answers the names sent that were refused. Those are acknowledged to
 * the runner with the stored ones: it resends every output not acknowledged on every report,
 * so one it can never get stored would otherwise come back until the job ends.
 */
export async function storeOutputs(
  reports: TaskReportStore,
  taskId: number,
  outputs: Readonly<Record<string, string>>,
): Promise<string[]> {
  const sent = Object.entries(outputs);
  if (sent.length === 0) return [];
  const known = new Set(await reports.listOutputNames(taskId));
  let room = MAX_OUTPUTS_PER_TASK - known.size;
  const values: { name: string; value: string }[] = [];
  const refused: string[] = [];
  for (const [name, value] of sent) {
    if (known.has(name)) continue;
    const valid =
      name !== '' &&
      Buffer.byteLength(name, 'utf8') <= MAX_OUTPUT_KEY_BYTES &&
      Buffer.byteLength(value, 'utf8') <= MAX_OUTPUT_VALUE_BYTES;
    if (valid && room > 0) {
      values.push({ name, value });
      room--;
    } else refused.push(name);
  }
  await reports.addOutputs(taskId, values);
  return refused;
}
