/**
 * The OpenAPI document at /api/v1/swagger.json is built from the routes' TypeBox schemas: every
 * branch, release, label and status route is in it, tagged, with its parameters, and with a
 * schema for its success response (and its request body where it takes one).
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Json, json } from '../support/http.ts';
import { startTestServer, type TestServer } from '../support/server.ts';

let kiln: TestServer;
let doc: Json;

beforeAll(async () => {
  kiln = await startTestServer();
  const response = await fetch(`${kiln.url}/api/v1/swagger.json`);
  expect(response.status).toBe(200);
  doc = await json(response);
});
afterAll(async () => {
  await kiln?.close();
});

const repo = '/repos/{owner}/{name}';
/** [method, path as documented, success status, takes a body]. */
const ROUTES: Array<[string, string, string, boolean]> = [
  ['get', `${repo}/branches`, '200', false],
  ['get', `${repo}/branches/{*}`, '200', false],
  ['get', `${repo}/releases`, '200', false],
  ['post', `${repo}/releases`, '201', true],
  ['get', `${repo}/releases/latest`, '200', false],
  ['get', `${repo}/releases/tags/{*}`, '200', false],
  ['patch', `${repo}/releases/tags/{*}`, '200', true],
  ['delete', `${repo}/releases/tags/{*}`, '204', false],
  ['get', `${repo}/releases/{id}`, '200', false],
  ['patch', `${repo}/releases/{id}`, '200', true],
  ['delete', `${repo}/releases/{id}`, '204', false],
  ['get', `${repo}/labels`, '200', false],
  ['get', `${repo}/commits/{*}`, '200', false],
  ['get', `${repo}/statuses/{sha}`, '200', false],
  ['post', `${repo}/statuses/{sha}`, '201', true],
  ['post', `${repo}/actions/runs/{run}/approve`, '200', false],
];

it('is an OpenAPI 3 document served under /api/v1', () => {
  expect(doc.openapi).toMatch(/^3\./);
  expect(doc.servers).toEqual([{ url: '/api/v1' }]);
});

it.each(ROUTES)('documents %s %s', (method, path, status, hasBody) => {
  const operation = doc.paths[path]?.[method];
  expect(operation, `${method} ${path}`).toBeDefined();
  expect(operation.tags.length).toBeGreaterThan(0);
  expect(operation.summary).toEqual(expect.any(String));
  const params = operation.parameters.filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
  for (const name of path.match(/\{([^}]+)\}/g) ?? []) {
    expect(params).toContain(name.slice(1, -1));
  }
  const success = operation.responses[status];
  expect(success, `${method} ${path} ${status}`).toBeDefined();
  if (status !== '204') expect(success.content['application/json'].schema).toBeDefined();
  expect(operation.responses['404']).toBeDefined();
  if (hasBody) expect(operation.requestBody.content['application/json'].schema).toBeDefined();
});

it('keeps Gitea’s key names in the documented shapes', () => {
  const branch =
    doc.paths[`${repo}/branches/{*}`].get.responses['200'].content['application/json'].schema;
  expect(branch.required).toEqual(
    expect.arrayContaining([
      'name',
      'commit',
      'protected',
      'user_can_push',
      'status_check_contexts',
    ]),
  );
  const status =
    doc.paths[`${repo}/statuses/{sha}`].post.responses['201'].content['application/json'].schema;
  expect(Object.keys(status.properties)).toContain('status');
  expect(Object.keys(status.properties)).not.toContain('state');
});

it('serves the documentation UI beside it, from the same document', async () => {
  const page = await fetch(`${kiln.url}/api/swagger/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  const viaUi = await fetch(`${kiln.url}/api/swagger/json`);
  expect(await json(viaUi)).toEqual(doc);
  const yaml = await fetch(`${kiln.url}/api/swagger/yaml`);
  expect(yaml.headers.get('content-type')).toMatch(/yaml/);
  expect(await yaml.text()).toContain('title: Kiln API');
});

it('answers the UI’s assets conditionally and its unknown paths with the site’s 404', async () => {
  const asset = await fetch(`${kiln.url}/api/swagger/static/swagger-ui.css`);
  expect(asset.status).toBe(200);
  const etag = asset.headers.get('etag');
  expect(etag).toBeTruthy();
  const again = await fetch(`${kiln.url}/api/swagger/static/swagger-ui.css`, {
    headers: { 'if-none-match': etag ?? '' },
  });
  expect(again.status).toBe(304);
  const redirect = await fetch(`${kiln.url}/api/swagger/static/index.html`, { redirect: 'manual' });
  expect(redirect.status).toBe(302);
  expect(redirect.headers.get('content-type')).toBeNull();
  const missing = await fetch(`${kiln.url}/api/swagger/no-such-file`);
  expect(missing.status).toBe(404);
  expect(missing.headers.get('content-type')).toMatch(/^text\/html/);
});
