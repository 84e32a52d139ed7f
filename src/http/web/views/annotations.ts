import type { Annotation, RunAnnotation } from '../../../domain/ci/annotations/annotation.types.ts';
import type { AnnotationLevel } from '../../../domain/ci/annotations/annotation-command.ts';
import { type Html, html } from '../html.ts';
import { icon } from '../icons.ts';

const LOOKS: Record<AnnotationLevel, { glyph: string; colour: string; label: string }> = {
  error: { glyph: 'x-circle', colour: 'color-fg-danger', label: 'Error' },
  warning: { glyph: 'alert', colour: 'color-fg-attention', label: 'Warning' },
  notice: { glyph: 'info', colour: 'color-fg-accent', label: 'Notice' },
};

/** `path#L3-L5`, `path#L3`, `path`, or nothing: where an annotation points. */
export function annotationPlace(annotation: Annotation): string | null {
  if (annotation.file === null) return null;
  if (annotation.line === null) return annotation.file;
  const end =
    annotation.endLine !== null && annotation.endLine > annotation.line
      ? `-L${annotation.endLine}`
      : '';
  return `${annotation.file}#L${annotation.line}${end}`;
}

/** One annotation: its level as an icon, its title, where it points and its message. */
export function annotationItem(annotation: Annotation, job?: string): Html {
  const look = LOOKS[annotation.level];
  const place = annotationPlace(annotation);
  return html`<li class="Box-row d-flex kiln-gap" data-annotation="${annotation.level}">
    <span class="${look.colour}">${icon(look.glyph, { label: look.label })}</span>
    <div class="flex-auto min-width-0">
      <div class="f6 color-fg-muted kiln-break">${job ? html`<strong>${job}</strong> · ` : null}${look.label}${
        annotation.title ? html`: <strong>${annotation.title}</strong>` : null
      }${place ? html` · <code>${place}</code>` : null}</div>
      <pre class="kiln-annotation-message kiln-break mb-0">${annotation.message}</pre>
    </div>
  </li>`;
}

/** The annotations of a job or of a run's jobs, as a box; nothing when there are none. */
export function annotationBox(annotations: readonly (Annotation | RunAnnotation)[]): Html | null {
  if (annotations.length === 0) return null;
  return html`<div class="Box mb-3" aria-label="Annotations">
    <div class="Box-header py-2"><h3 class="Box-title">${icon('alert')} Annotations
      <span class="Counter">${annotations.length}</span></h3></div>
    <ul>${annotations.map((annotation) =>
      annotationItem(annotation, 'jobName' in annotation ? annotation.jobName : undefined),
    )}</ul>
  </div>`;
}

/** How a log line that made an annotation reads in the log: its level and message, not the command. */
export function annotationLogLine(annotation: {
  readonly level: AnnotationLevel;
  readonly title: string | null;
  readonly message: string;
}): Html {
  const look = LOOKS[annotation.level];
  return html`<span class="${look.colour}" data-annotation-line="${annotation.level}">${look.label}: ${
    annotation.title ? `${annotation.title}: ` : ''
  }${annotation.message}</span>`;
}

/**
 * The annotations of a pull request's head as rows of its diff: `at(path, side, line)` gives the
 * row to show after a line of the new side that an annotation names, or null. Annotations of
 * files or lines outside the diff are simply never asked for.
 */
export function diffAnnotations(annotations: readonly RunAnnotation[]) {
  const byPlace = new Map<string, RunAnnotation[]>();
  for (const annotation of annotations) {
    if (annotation.file === null || annotation.line === null) continue;
    const key = `${annotation.file}\0${annotation.line}`;
    byPlace.set(key, [...(byPlace.get(key) ?? []), annotation]);
  }
  return (path: string, side: 'LEFT' | 'RIGHT', line: number): Html | null => {
    const here = side === 'RIGHT' ? byPlace.get(`${path}\0${line}`) : undefined;
    if (here === undefined) return null;
    return html`<tr class="kiln-comment-row"><td colspan="3"><ul class="Box my-2" aria-label="Annotations">${here.map(
      (annotation) => annotationItem(annotation, annotation.jobName),
    )}</ul></td></tr>`;
  };
}
