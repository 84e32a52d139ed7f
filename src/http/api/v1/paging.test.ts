import { describe, expect, it } from 'vitest';
import { readPaging } from './paging.ts';

describe('readPaging', () => {
  it.each([
    [{}, { page: 1, limit: 30, offset: 0 }],
    [
      { page: '2', limit: '10' },
      { page: 2, limit: 10, offset: 10 },
    ],
    [{ page: '0' }, { page: 1, limit: 30, offset: 0 }],
    [
      { page: '-1', limit: '-5' },
      { page: 1, limit: 30, offset: 0 },
    ],
    [{ limit: '100000' }, { page: 1, limit: 50, offset: 0 }],
    [
      { page: 'abc', limit: 'x' },
      { page: 1, limit: 30, offset: 0 },
    ],
    [
      { page: ['2', '3'], limit: ['10'] },
      { page: 1, limit: 30, offset: 0 },
    ],
    [
      { page: '3', limit: '50' },
      { page: 3, limit: 50, offset: 100 },
    ],
  ])('reads %j', (query, expected) => {
    expect(readPaging(query)).toEqual(expected);
  });
});
