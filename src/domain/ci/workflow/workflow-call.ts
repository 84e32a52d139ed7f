import { isRecord, type Triggers } from './triggers.ts';
import { WorkflowError } from './workflow-error.ts';

/** Where a job's `uses:` finds the workflow it calls. */
export type CallRef =
  /** `./.gitea/workflows/x.yml`: the calling repository at the run's commit. */
  | { readonly kind: 'local'; readonly path: string }
  /** `owner/repo/.gitea/workflows/x.yml@ref`: a repository of this instance at `ref`. */
  | {
      readonly kind: 'remote';
      readonly owner: string;
      readonly repo: string;
      readonly path: string;
      readonly ref: string;
    };

const WORKFLOW_PATH = /^\.(gitea|github)\/workflows\/[^/]+\.ya?ml$/;
const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * Reads a job-level `uses:`. Only workflow files under `.gitea/workflows` or `.github/workflows`
 * can be called; throws `WorkflowError` naming the job for anything else.
 */
export function parseCallRef(jobId: string, uses: string): CallRef {
  if (uses.startsWith('./')) {
    const path = uses.slice(2);
    if (WORKFLOW_PATH.test(path)) return { kind: 'local', path };
  } else {
    const at = uses.lastIndexOf('@');
    const [owner = '', repo = '', ...rest] = (at === -1 ? uses : uses.slice(0, at)).split('/');
    const path = rest.join('/');
    const ref = at === -1 ? '' : uses.slice(at + 1);
    if (NAME.test(owner) && NAME.test(repo) && WORKFLOW_PATH.test(path) && /^[^\s:~^]+$/.test(ref))
      return { kind: 'remote', owner, repo, path, ref };
  }
  throw new WorkflowError(
    `job "${jobId}": uses must name a workflow file, as ./.gitea/workflows/x.yml or ` +
      'owner/repo/.gitea/workflows/x.yml@ref',
  );
}

/** How messages name a call: the path of a local one, `owner/repo/path@ref` of another. */
export function callLabel(ref: CallRef): string {
  return ref.kind === 'local' ? ref.path : `${ref.owner}/${ref.repo}/${ref.path}@${ref.ref}`;
}

/** An input `workflow_call` declares. */
export type CallInput = {
  readonly type: 'string' | 'boolean' | 'number';
  readonly required: boolean;
  readonly default: unknown;
};

/** What a called workflow declares under `on.workflow_call`. */
export type CallDeclarations = {
  readonly inputs: Readonly<Record<string, CallInput>>;
  readonly secrets: Readonly<Record<string, { readonly required: boolean }>>;
  /** Output name → its `value:` expression (reading `jobs.<id>.outputs`). */
  readonly outputs: Readonly<Record<string, string>>;
};

/** `on.workflow_call` of a called workflow; throws when it has none (it cannot be called). */
export function callDeclarations(file: string, triggers: Triggers): CallDeclarations {
  const call = triggers.get('workflow_call');
  if (call === undefined) throw new WorkflowError(`${file} has no "on: workflow_call" trigger`);
  const inputs: Record<string, CallInput> = {};
  for (const [name, spec] of Object.entries(isRecord(call.inputs) ? call.inputs : {})) {
    const given = isRecord(spec) ? spec : {};
    const type = given.type ?? 'string';
    if (type !== 'string' && type !== 'boolean' && type !== 'number') {
      throw new WorkflowError(`${file}: input "${name}" has an unknown type`);
    }
    inputs[name] = { type, required: given.required === true, default: given.default };
  }
  const secrets: Record<string, { required: boolean }> = {};
  for (const [name, spec] of Object.entries(isRecord(call.secrets) ? call.secrets : {})) {
    secrets[name] = { required: isRecord(spec) && spec.required === true };
  }
  const outputs: Record<string, string> = {};
  for (const [name, spec] of Object.entries(isRecord(call.outputs) ? call.outputs : {})) {
    if (!isRecord(spec) || typeof spec.value !== 'string') {
      throw new WorkflowError(`${file}: output "${name}" has no value`);
    }
    outputs[name] = spec.value;
  }
  return { inputs, secrets, outputs };
}

/**
 * One workflow call of a run, kept with the run (`workflow_runs.calls`, by the calling job's
 * key): what the job hands the called workflow, evaluated when one of its jobs is handed out,
 * since `with:` may read `needs` of the calling job.
 */
export type CallFrame = {
  /** `with:`, as written once the run's own contexts were put in. */
  readonly with: Readonly<Record<string, unknown>>;
  readonly inputs: Readonly<Record<string, CallInput>>;
  /** `inherit`, or secret name → expression over the caller's `secrets`. */
  readonly secrets: 'inherit' | Readonly<Record<string, string>>;
  readonly outputs: Readonly<Record<string, string>>;
  /** The calling job's `needs`, by id in the caller's workflow. */
  readonly needs: readonly string[];
};

/**
 * Checks a calling job against what the workflow it calls declares: no `with:` the workflow
 * does not take, every required input given, and, unless `secrets: inherit`, every required
 * secret passed and none it does not declare. Answers the call's frame.
 */
export function callFrame(
  jobId: string,
  job: Readonly<Record<string, unknown>>,
  declared: CallDeclarations,
  needs: readonly string[],
): CallFrame {
  const where = `job "${jobId}"`;
  for (const key of ['steps', 'runs-on', 'strategy', 'container', 'services']) {
    if (job[key] !== undefined) {
      throw new WorkflowError(`${where} calls a workflow and cannot have "${key}"`);
    }
  }
  const given = job.with === undefined ? {} : job.with;
  if (!isRecord(given)) throw new WorkflowError(`${where}: with must be a mapping`);
  for (const name of Object.keys(given)) {
    if (declared.inputs[name] === undefined) {
      throw new WorkflowError(`${where}: the called workflow has no input "${name}"`);
    }
  }
  for (const [name, input] of Object.entries(declared.inputs)) {
    if (input.required && given[name] === undefined && input.default === undefined) {
      throw new WorkflowError(`${where}: input "${name}" is required`);
    }
  }
  let secrets: CallFrame['secrets'];
  if (job.secrets === 'inherit') secrets = 'inherit';
  else {
    const passed = job.secrets === undefined ? {} : job.secrets;
    if (!isRecord(passed))
      throw new WorkflowError(`${where}: secrets must be inherit or a mapping`);
    for (const name of Object.keys(passed)) {
      if (declared.secrets[name] === undefined) {
        throw new WorkflowError(`${where}: the called workflow has no secret "${name}"`);
      }
    }
    for (const [name, secret] of Object.entries(declared.secrets)) {
      if (secret.required && passed[name] === undefined) {
        throw new WorkflowError(`${where}: secret "${name}" is required`);
      }
    }
    secrets = Object.fromEntries(Object.entries(passed).map(([k, v]) => [k, String(v)]));
  }
  return { with: given, inputs: declared.inputs, secrets, outputs: declared.outputs, needs };
}

/**
 * The value of one input as the called workflow sees it: its type's (`true`/`false`, a number,
 * text), the default when not given; undefined when neither.
 */
export function inputValue(input: CallInput, given: unknown): unknown {
  const value = given === undefined || given === null ? input.default : given;
  if (value === undefined || value === null) return undefined;
  if (input.type === 'boolean') return value === true || String(value).trim() === 'true';
  if (input.type === 'number') {
    const number = Number(value);
    return Number.isFinite(number) ? number : 0;
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Whether a calling job's `if:` lets it run, evaluated when the run is made with what the server
 * knows (`github`, `vars`, `inputs`): a calling job has no runner to evaluate it later. An `if:`
 * reading anything else (`needs`, `success()`…) is refused naming the job.
 */
export function callRuns(
  jobId: string,
  condition: unknown,
  evaluate: (expression: string) => unknown,
): boolean {
  if (condition === undefined || condition === null) return true;
  if (typeof condition === 'boolean') return condition;
  const source = String(condition).trim();
  const inner = /^\$\{\{([\s\S]*)\}\}$/.exec(source)?.[1] ?? source;
  let value: unknown;
  try {
    value = evaluate(`\${{ ${inner} }}`);
  } catch {
    value = undefined;
  }
  if (value === undefined || (typeof value === 'string' && value.includes('${{'))) {
    throw new WorkflowError(
      `job "${jobId}": the if: of a job that calls a workflow may read only github, vars and inputs`,
    );
  }
  return value !== false && value !== null && value !== 0 && value !== '';
}

/** Reads a stored `workflow_runs.calls` back; anything malformed is left out. */
export function readCallFrames(stored: unknown): Record<string, CallFrame> {
  if (!isRecord(stored)) return {};
  const frames: Record<string, CallFrame> = {};
  for (const [key, frame] of Object.entries(stored)) {
    if (!isRecord(frame) || !isRecord(frame.with) || !isRecord(frame.inputs)) continue;
    if (!isRecord(frame.outputs) || !Array.isArray(frame.needs)) continue;
    if (frame.secrets !== 'inherit' && !isRecord(frame.secrets)) continue;
    frames[key] = frame as CallFrame;
  }
  return frames;
}
