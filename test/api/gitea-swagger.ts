/**
 * Checks Kiln's REST responses against Gitea 1.22.0's own swagger document: the definition its
 * route declares for the status, every key Gitea always emits, the JSON types and formats, and
 * that no user object but the caller's own from `GET /user` carries an email address.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SWAGGER_PATH = resolve(ROOT, 'test/fixtures/gitea/swagger-1.22.0.json');

type SchemaObject = { [key: string]: unknown };
type Operation = { responses?: Record<string, { $ref?: string; schema?: unknown }> };
type Swagger = {
  paths: Record<string, Record<string, Operation>>;
  definitions: Record<string, SchemaObject & { properties?: Record<string, unknown> }>;
  responses: Record<string, { schema?: unknown }>;
};

/**
 * Keys Gitea leaves out of an object in some responses: a Repository's `parent` when it is not
 * a fork, the unit settings of units that are off, a pending transfer; a User's `email` for
 * anyone but the caller themself (SPEC.md). Every other property is always emitted.
 */
const OMITTED: Record<string, readonly string[]> = {
  Repository: ['parent', 'internal_tracker', 'external_tracker', 'external_wiki', 'repo_transfer'],
  User: ['email'],
};

/** Go pointers and nil slices Gitea emits as null in the objects Kiln serves. */
const NULLABLE: Record<string, readonly string[]> = {
  PayloadCommitVerification: ['signer'],
  PayloadCommit: ['added', 'removed', 'modified'],
  PullRequest: [
    'assignee',
    'assignees',
    'closed_at',
    'due_date',
    'merge_commit_sha',
    'merged_at',
    'merged_by',
    'milestone',
    'requested_reviewers',
  ],
  PullReview: ['team'],
  PullReviewComment: ['resolver'],
};

/** Keys Gitea emits that its swagger does not declare (User's custom marshaller adds `username`). */
const EXTRA_REQUIRED: Record<string, readonly string[]> = {
  User: ['username'],
};

/** Kiln routes that Gitea lacks (SPEC.md keeps them), and what they answer with. */
const KILN_ONLY: ReadonlyArray<{ method: string; path: RegExp; schema: string }> = [
  { method: 'get', path: /^\/repos$/, schema: '#/responses/RepositoryList/schema' },
  {
    method: 'patch',
    path: /^\/repos\/[^/]+\/[^/]+\/releases\/tags\/.+$/,
    schema: '#/responses/Release/schema',
  },
];

/** Path parameters that Kiln matches greedily (they may contain slashes). */
const GREEDY = new Set(['branch', 'tag', 'ref', 'filepath']);

function loadSwagger(): Swagger {
  const document = JSON.parse(readFileSync(SWAGGER_PATH, 'utf8')) as Swagger;
  for (const [name, definition] of Object.entries(document.definitions)) {
    const properties = definition.properties;
    if (!properties) continue;
    const omitted = OMITTED[name] ?? [];
    definition.required = [
      ...Object.keys(properties).filter((key) => !omitted.includes(key)),
      ...(EXTRA_REQUIRED[name] ?? []),
    ];
    for (const key of NULLABLE[name] ?? []) {
      properties[key] = { anyOf: [properties[key], { type: 'null' }] };
    }
  }
  return document;
}

const swagger = loadSwagger();
const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false });
// ajv-formats is CommonJS; its default export arrives wrapped under Node's ESM loader.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ??
  addFormatsModule) as (instance: Ajv) => void;
addFormats(ajv);
ajv.addFormat('int64', {
  type: 'number',
  validate: (value: number) => Number.isSafeInteger(value),
});
ajv.addFormat('uint64', {
  type: 'number',
  validate: (value: number) => Number.isSafeInteger(value) && value >= 0,
});
ajv.addSchema(swagger as unknown as SchemaObject, 'gitea');

const compiled = new Map<string, ValidateFunction>();
function validatorFor(pointer: string): ValidateFunction {
  let validate = compiled.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `gitea${pointer}` });
    compiled.set(pointer, validate);
  }
  return validate;
}

/** Validates `value` against a definition by name (`Branch`) and throws with every mismatch. */
export function expectGiteaDefinition(value: unknown, definition: string): void {
  assertValid(validatorFor(`#/definitions/${definition}`), value, definition);
}

function assertValid(validate: ValidateFunction, value: unknown, what: string): void {
  if (validate(value)) return;
  const problems = (validate.errors ?? [])
    .slice(0, 10)
    .map(
      (error) =>
        `${error.instancePath || '/'} ${error.message ?? ''} ${JSON.stringify(error.params)}`,
    );
  throw new Error(`response does not match Gitea's ${what}:\n  ${problems.join('\n  ')}`);
}

function templateRegex(template: string): { regex: RegExp; literals: number } {
  let literals = 0;
  const source = template
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) {
        literals += 1;
        return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      }
      return GREEDY.has(param[1] ?? '') ? '.+' : '[^/]+';
    })
    .join('/');
  return { regex: new RegExp(`^${source}$`), literals };
}

const templates = Object.keys(swagger.paths).map((template) => ({
  template,
  ...templateRegex(template),
}));

/**
 * The JSON pointer of the schema Gitea declares for `method path` answering `status`, or
 * undefined when Gitea declares no body. Throws when Gitea has the route but not that status.
 */
export function declaredSchema(method: string, path: string, status: number): string | undefined {
  const lower = method.toLowerCase();
  const bare = path.split('?')[0] ?? path;
  const kilnOnly = KILN_ONLY.find((route) => route.method === lower && route.path.test(bare));
  if (kilnOnly) return kilnOnly.schema;
  const matches = templates
    .filter(({ template, regex }) => regex.test(bare) && swagger.paths[template]?.[lower])
    .sort((a, b) => b.literals - a.literals);
  const best = matches[0];
  if (!best) throw new Error(`Gitea has no route ${method} ${bare}`);
  const response = swagger.paths[best.template]?.[lower]?.responses?.[String(status)];
  if (!response) {
    throw new Error(`Gitea's ${method} ${best.template} never answers ${status}`);
  }
  if (response.schema)
    return `#/paths/${pointerEscape(best.template)}/${lower}/responses/${status}/schema`;
  const named = response.$ref?.replace('#/responses/', '');
  if (named && swagger.responses[named]?.schema) return `#/responses/${named}/schema`;
  return undefined;
}

function pointerEscape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** Every object with a `login` key (users, owners, authors, creators) found in `value`. */
function userObjects(value: unknown, found: Array<Record<string, unknown>> = []) {
  if (Array.isArray(value)) {
    for (const item of value) userObjects(item, found);
  } else if (typeof value === 'object' && value !== null) {
    const record = value as Record<string, unknown>;
    if (typeof record.login === 'string') found.push(record);
    for (const child of Object.values(record)) userObjects(child, found);
  }
  return found;
}

/**
 * The whole wire check of one response: 2xx bodies against Gitea's declared definition, 4xx
 * bodies as `{message, url}`, and emails only on the caller's own `GET /user`.
 */
export function checkGiteaResponse(method: string, path: string, status: number, body: unknown) {
  const bare = path.split('?')[0] ?? path;
  if (status >= 400 && status < 500) {
    const error = body as { message?: unknown; url?: unknown };
    if (typeof error?.message !== 'string' || typeof error.url !== 'string') {
      throw new Error(`${method} ${bare} → ${status} without Gitea's {message, url}`);
    }
    return;
  }
  if (status >= 500) throw new Error(`${method} ${bare} → ${status}`);
  const pointer = declaredSchema(method, bare, status);
  if (pointer !== undefined)
    assertValid(validatorFor(pointer), body, `${method} ${bare} (${pointer})`);
  const self = method.toUpperCase() === 'GET' && bare === '/user';
  for (const user of userObjects(body)) {
    if (self && user === body) continue;
    if ('email' in user) {
      throw new Error(`${method} ${bare} shows the email of ${String(user.login)}`);
    }
  }
}
