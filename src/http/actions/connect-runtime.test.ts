import { contentTypeUnaryRegExp } from '@connectrpc/connect/protocol-connect';
import { describe, expect, it } from 'vitest';
import { PROCEDURES, UNARY_CONTENT_TYPE } from './actions.routes.ts';
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

describe('the content types accepted before Connect loads', () => {
  it('are the ones Connect accepts for unary calls', () => {
    const samples = [
      'application/proto',
      'application/json',
      'application/json; charset=utf-8',
      'application/json;charset=UTF8',
      'APPLICATION/PROTO',
      'application/json; charset=latin1',
      'application/connect+proto',
      'application/grpc',
      'application/protobuf',
      'application/x-protobuf',
      'text/plain',
      'application/proto; charset=utf-8',
      '',
    ];
    for (const sample of samples) {
      expect(UNARY_CONTENT_TYPE.test(sample), sample).toBe(contentTypeUnaryRegExp.test(sample));
    }
    expect(UNARY_CONTENT_TYPE.source).toBe(contentTypeUnaryRegExp.source);
    expect(UNARY_CONTENT_TYPE.flags).toBe(contentTypeUnaryRegExp.flags);
  });
});
