/**
 * The render worker: the only thread where markdown-it and highlight.js run (see
 * content-renderer.ts for the rule). It loads both before it says it is ready, so the pool's
 * time budget never pays for module loading, then answers one job at a time.
 */
import { parentPort } from 'node:worker_threads';
import { yieldToRequestThread } from '../../../lib/thread-priority.ts';
import { highlightLines, loadHighlighter } from '../highlight.ts';
import { loadMarkdown, renderMarkdown } from '../markdown.ts';
import type { RenderJob } from './render-job.ts';

async function render(job: RenderJob): Promise<string | null> {
  const output = await markup(job);
  return output.length > job.maxOutput ? null : output;
}

async function markup(job: RenderJob): Promise<string> {
  if (job.kind === 'markdown') return (await renderMarkdown(job.text, job.base)).value;
  if (job.kind === 'markdown-list') {
    const outputs: string[] = [];
    for (const text of job.texts) outputs.push((await renderMarkdown(text, job.base)).value);
    return JSON.stringify(outputs);
  }
  return (await highlightLines(job.fileName, job.text)).join('\n');
}

const port = parentPort;
if (port) {
  yieldToRequestThread();
  await Promise.all([loadHighlighter(), loadMarkdown()]);
  port.on('message', (job: RenderJob) => {
    render(job).then(
      (output) => port.postMessage({ ok: true, output }),
      (error: unknown) => port.postMessage({ ok: false, error: String(error) }),
    );
  });
  port.postMessage({ ready: true });
}
