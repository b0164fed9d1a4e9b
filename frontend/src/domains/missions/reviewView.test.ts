import { describe, expect, it } from 'vitest';

import { changedView, DEFAULT_VIEW, formatReviewView, isFiltered, parseReviewView, reviewVariables } from './reviewView';

describe('the mission review list view in the URL', () => {
  it('round-trips every part and keeps what other sections hold in the query', () => {
    const view = {
      kinds: ['ASSET', 'HOP_PLAN'] as const,
      search: 'reef',
      since: '2026-01-01T10:00',
      until: '2026-01-02T10:00',
      order: 'newest' as const,
      at: ['c1', 'c2'],
      size: 5,
    };
    const text = formatReviewView(view, 'other=1&mq=old');
    expect(new URLSearchParams(text).get('other')).toBe('1');
    expect(parseReviewView(text)).toEqual(view);
  });

  it('lists the nearest deadline first unless the URL says otherwise', () => {
    expect(DEFAULT_VIEW.order).toBe('deadline');
    expect(parseReviewView('morder=oldest').order).toBe('oldest');
    expect(formatReviewView({ ...DEFAULT_VIEW, order: 'oldest' })).toBe('morder=oldest');
  });

  it('drops what is not valid and defaults the rest', () => {
    expect(parseReviewView('mkind=BOGUS,ASSET&msize=1000&msince=nope&morder=x')).toEqual({ ...DEFAULT_VIEW, kinds: ['ASSET'] });
    expect(formatReviewView(DEFAULT_VIEW)).toBe('');
  });

  it('sends the filter the API takes: no short search, times as UTC, the last cursor', () => {
    const view = { ...DEFAULT_VIEW, search: ' ab ', at: ['c1', 'c2'], since: '2026-01-01T00:00:00Z' };
    expect(reviewVariables(view)).toEqual({
      first: 20,
      after: 'c2',
      filter: { since: '2026-01-01T00:00:00.000Z' },
      newestFirst: false,
      orderBy: 'DEADLINE',
    });
    expect(reviewVariables({ ...DEFAULT_VIEW, order: 'oldest' })).toMatchObject({ newestFirst: false, orderBy: 'WAITING' });
    expect(reviewVariables({ ...DEFAULT_VIEW, order: 'newest' })).toMatchObject({ newestFirst: true, orderBy: 'WAITING' });
    expect(reviewVariables({ ...DEFAULT_VIEW, search: 'reef', kinds: ['MISSION'] }).filter).toEqual({ kinds: ['MISSION'], search: 'reef' });
    expect(reviewVariables(DEFAULT_VIEW).filter).toBeNull();
  });

  it('goes back to the first page on any change but paging', () => {
    const paged = { ...DEFAULT_VIEW, at: ['c1'] };
    expect(changedView(paged, { search: 'reef' }).at).toEqual([]);
    expect(isFiltered(paged)).toBe(false);
    expect(isFiltered({ ...paged, kinds: ['ASSET'] })).toBe(true);
  });
});
