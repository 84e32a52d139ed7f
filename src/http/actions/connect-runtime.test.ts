import { describe, expect, it } from 'vitest';
import { PROCEDURES } from './actions.routes.ts';
import { ConnectRuntime, services } from './connect-runtime.ts';
import type { RunnerRegistry } from './runner-registry.ts';

const unused = new Proxy({} as RunnerRegistry, {
  get: () => () => Promise.reject(new Error('not called')),
});

describe('the routes mounted before Connect loads', () => {
  it('are exactly the methods of the generated services', () => {
    const methods = services.flatMap((service) =>
      service.methods.map((method) => `/${service.typeName}/${method.name}`),
    );
    expect([...PROCEDURES].sort()).toEqual(methods.sort());
  });

  it('are exactly the procedures the Connect router serves', () => {
    const runtime = new ConnectRuntime(unused, 1024);
    expect([...PROCEDURES].sort()).toEqual(runtime.paths.sort());
  });
});
