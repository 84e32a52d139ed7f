import { describe, expect, it } from 'vitest';
import { prefersJson, searchQuery } from './search.routes.ts';

describe('prefersJson', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['*/*', false],
    ['text/html', false],
    ['application/json, */*', true],
    ['application/json, text/plain, */*', true],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', false],
    ['text/html;q=0.5, application/json', true],
    ['application/json;q=0.5, text/html', false],
    ['application/json;q=0', false],
    ['application/*', true],
    ['application/json;q=bogus', false],
  ])('%j → %s', (accept, expected) => {
    expect(prefersJson(accept)).toBe(expected);
  });
});

describe('searchQuery', () => {
  it('trims, bounds and takes the first of repeated values', () => {
    expect(searchQuery({ q: '  kiln ' })).toBe('kiln');
    expect(searchQuery({ q: ['a', 'b'] })).toBe('a');
    expect(searchQuery({ q: 'x'.repeat(500) })).toHaveLength(100);
    expect(searchQuery({})).toBe('');
    expect(searchQuery(undefined)).toBe('');
    expect(searchQuery({ q: { nested: 1 } })).toBe('');
  });
});
