import { describe, expect, it } from 'vitest';

import { formatCount, formatRelative, formatTime } from './format';

describe('formatTime', () => {
  it('shows the time zone with every time', () => {
    const shown = formatTime('2026-11-24T20:17:15Z');
    // The zone's short name or offset, in whatever zone the machine runs: "UTC", "GMT+1", "CET", ...
    expect(shown).toMatch(/\d{1,2}:\d\d:\d\d\s?([AP]M)?\s(UTC|GMT([+-]\d{1,2}(:\d\d)?)?|[A-Z]{2,5})$/);
    expect(formatTime(null)).toBe('–');
    expect(formatTime('not a time')).toBe('not a time');
  });
});

describe('counts and relative times', () => {
  it('puts thousands separators in counts', () => {
    expect(formatCount(100000)).toBe('100,000');
    expect(formatCount(999)).toBe('999');
  });

  it('says how long ago, or how soon, a time is', () => {
    const now = Date.parse('2026-11-28T12:00:00Z');
    expect(formatRelative('2026-11-28T11:59:55Z', now)).toBe('just now');
    expect(formatRelative('2026-11-28T11:59:15Z', now)).toBe('45 s ago');
    expect(formatRelative('2026-11-28T11:55:00Z', now)).toBe('5 min ago');
    expect(formatRelative('2026-11-28T09:00:00Z', now)).toBe('3 h ago');
    expect(formatRelative('2026-11-28T15:00:00Z', now)).toBe('in 3 h');
    expect(formatRelative('2026-11-25T12:00:00Z', now)).toBe('3 days ago');
    expect(formatRelative(null, now)).toBe('–');
  });
});
