import type { FastifyInstance } from 'fastify';
import { Invalid } from '../../domain/errors.ts';

/**
 * Path and query numbers are finite, on every route. Ajv's coercion turns `1e309` into
 * `Infinity`, which passes `type: integer` and even `maximum`, and then reaches the database
 * (PostgreSQL refuses it as a bigint: a 500) or a lookup as a number that is no row. Checked
 * once here, after validation, rather than trusted to each route's schema: a number a client
 * wrote that is not finite is a 422 (a 400-class page) with the parameter's name.
 */
export function registerFiniteNumbers(server: FastifyInstance): void {
  server.addHook('preHandler', (request, _reply, done) => {
    for (const values of [request.params, request.query]) {
      if (values === null || typeof values !== 'object') continue;
      for (const [name, value] of Object.entries(values)) {
        if (typeof value === 'number' && !Number.isFinite(value)) {
          done(new Invalid(`${name} must be a finite number`));
          return;
        }
      }
    }
    done();
  });
}
