import { describe, expect, it } from 'vitest';

import { DEFAULT_QUERY, formatTableQuery, hashQuery, listVariables, parseTableQuery, sortedBy, withChange } from './tableQuery';

const STATUSES = ['PLANNING', 'STALLED', 'COMPLETED'];

describe('table query', () => {
  it('round-trips filter, search, sort and page through the hash', () => {
    const q = { ...DEFAULT_QUERY, status: ['STALLED'], search: 'battery', sort: 'UPDATED_AT' as const, dir: 'ASC' as const, at: ['YWJj', 'ZGVm'], size: 2 };
    const text = formatTableQuery(q);
    expect(parseTableQuery(hashQuery(`#/plans?${text}`), STATUSES)).toEqual(q);
    expect(formatTableQuery(DEFAULT_QUERY)).toBe('');
  });

  it('drops what it does not know', () => {
    const q = parseTableQuery('status=STALLED,NOPE&sort=WHO.UP&since=never&size=1000', STATUSES);
    expect(q.status).toEqual(['STALLED']);
    expect(q.sort).toBe('CREATED_AT');
    expect(q.dir).toBe('DESC');
    expect(q.since).toBe('');
    expect(q.size).toBe(50);
  });

  it('sends a search only from 3 bytes, and the last cursor as after', () => {
    expect(listVariables({ ...DEFAULT_QUERY, search: 'ab' }).filter).toBeNull();
    const v = listVariables({ ...DEFAULT_QUERY, search: 'abc', at: ['a', 'b'] });
    expect(v.first).toBe(50);
    expect(v.filter).toEqual({ search: 'abc' });
    expect(v.after).toBe('b');
  });

  it('goes back to the first page when the view changes, and flips a sorted column', () => {
    const q = { ...DEFAULT_QUERY, at: ['a'] };
    expect(withChange(q, { search: 'xyz' }).at).toEqual([]);
    expect(sortedBy(q, 'CREATED_AT').dir).toBe('ASC');
    expect(sortedBy(q, 'STATUS')).toMatchObject({ sort: 'STATUS', dir: 'DESC', at: [] });
  });
});
