import { describe, expect, it } from 'vitest';

import { formatTime } from './format';

describe('formatTime', () => {
  it('shows the time zone with every time', () => {
    const shown = formatTime('2026-11-24T20:17:15Z');
    // The zone's short name or offset, in whatever zone the machine runs: "UTC", "GMT+1", "CET", ...
    expect(shown).toMatch(/\d{1,2}:\d\d:\d\d\s?([AP]M)?\s(UTC|GMT([+-]\d{1,2}(:\d\d)?)?|[A-Z]{2,5})$/);
    expect(formatTime(null)).toBe('–');
    expect(formatTime('not a time')).toBe('not a time');
  });
});
