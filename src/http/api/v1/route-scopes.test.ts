import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { classifyRouteScopes, scopeCategoriesOf } from './route-scopes.ts';

describe('route scopes', () => {
  it('picks the longest prefix that ends on a segment boundary', () => {
    expect(scopeCategoriesOf('/users/:username/tokens/:token')).toEqual(['user']);
    expect(scopeCategoriesOf('/users/:username/repos')).toEqual(['user', 'repository']);
    expect(scopeCategoriesOf('/repos/:owner/:name/labelsx')).toEqual(['repository']);
    expect(scopeCategoriesOf('/userx')).toBeUndefined();
    expect(scopeCategoriesOf('/admin/hooks')).toEqual(['admin']);
    expect(scopeCategoriesOf('/adminx')).toBeUndefined();
  });

  it('stamps categories on each route and refuses a route the table does not cover', async () => {
    const server = Fastify();
    await server.register(
      async (api) => {
        classifyRouteScopes(api, '/api/v1');
        api.get('/user', async (request) => request.routeOptions.config.scopeCategories);
        expect(() => api.get('/unclassified', async () => 'x')).toThrow(
          'REST route /api/v1/unclassified has no token scope category in ROUTE_SCOPES',
        );
      },
      { prefix: '/api/v1' },
    );
    const answer = await server.inject('/api/v1/user');
    expect(answer.json()).toEqual(['user']);
    await server.close();
  });
});
