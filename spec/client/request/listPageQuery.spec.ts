import { describe, expect, it } from '@jest/globals';
import { listPageQuery } from '../../../src/client/request/listPageQuery.js';

describe('listPageQuery', () => {
  it('asks the first page at the version asked for, encoding every value', () => {
    const query = listPageQuery(
      { labelSelector: 'app=web&x=1', resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' },
      500,
      undefined,
    );
    expect(query.toString()).toBe(
      'labelSelector=app%3Dweb%26x%3D1&limit=500&resourceVersion=0&resourceVersionMatch=NotOlderThan',
    );
  });

  it('asks the next pages by continue token alone, and does not page with limit 0', () => {
    const query = listPageQuery({ fieldSelector: 'a=b', resourceVersion: '7' }, 0, 'tok');
    expect(query.toString()).toBe('fieldSelector=a%3Db&continue=tok');
  });
});
