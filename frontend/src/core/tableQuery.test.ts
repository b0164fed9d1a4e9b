import { describe, expect, it } from 'vitest';

import { DEFAULT_QUERY, formatTableQuery, hashQuery, listVariables, parseTableQuery, rangeAllowed, searchTooShort, sortedBy, withChange } from './tableQuery';

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

  it('sorts by duration, and keeps a time range only with the time sorts (the API refuses it otherwise)', () => {
    const ranged = { ...DEFAULT_QUERY, since: '2026-01-01T00:00', until: '2026-01-02T00:00', at: ['a'] };
    const byDuration = sortedBy(ranged, 'DURATION');
    expect(byDuration).toMatchObject({ sort: 'DURATION', dir: 'DESC', since: '', until: '', at: [] });
    expect(sortedBy(byDuration, 'DURATION').dir).toBe('ASC');
    expect(listVariables(byDuration).orderBy).toEqual({ field: 'DURATION', direction: 'DESC' });
    expect(sortedBy(ranged, 'UPDATED_AT')).toMatchObject({ since: ranged.since, until: ranged.until });
    expect(parseTableQuery('sort=DURATION.ASC&since=2026-01-01T00:00', STATUSES)).toMatchObject({ sort: 'DURATION', dir: 'ASC', since: '' });
    expect(parseTableQuery('sort=STATUS.DESC&until=2026-01-01T00:00', STATUSES).until).toBe('');
    expect(parseTableQuery('sort=UPDATED_AT.DESC&until=2026-01-01T00:00', STATUSES).until).toBe('2026-01-01T00:00');
    expect(['CREATED_AT', 'UPDATED_AT', 'STATUS', 'DURATION'].map((f) => rangeAllowed(f as 'STATUS'))).toEqual([true, true, false, false]);
  });
});

describe('a search too short for the index', () => {
  it('is one of 1 or 2 bytes, not an empty one, and counts bytes, not characters', () => {
    expect(searchTooShort('')).toBe(false);
    expect(searchTooShort('  ')).toBe(false);
    expect(searchTooShort('ab')).toBe(true);
    expect(searchTooShort('abc')).toBe(false);
    expect(searchTooShort('é')).toBe(true);
    expect(searchTooShort('éé')).toBe(false);
  });
});
