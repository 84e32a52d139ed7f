import type { AnnotationCommand } from './annotation-command.ts';

/** A stored annotation of a job, with where in its log it was printed. */
export type Annotation = AnnotationCommand & {
  readonly taskId: number;
  readonly logRow: number;
};

/** An annotation of a job of some run, with the job's name, for a run or a pull request. */
export type RunAnnotation = Annotation & { readonly jobName: string };
