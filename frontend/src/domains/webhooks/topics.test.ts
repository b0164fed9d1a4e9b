import { describe, expect, it } from 'vitest';

import { lastAnswer, parseRange, topicLabel } from './topics';

describe('webhook words', () => {
  it('reads a redelivery range', () => {
    expect(parseRange('5', '')).toEqual({ fromSeq: 5, toSeq: null });
    expect(parseRange(' 5 ', '9')).toEqual({ fromSeq: 5, toSeq: 9 });
    expect(parseRange('', '')).toMatch(/first seq/);
    expect(parseRange('0', '')).toMatch(/first seq/);
    expect(parseRange('2.5', '')).toMatch(/first seq/);
    expect(parseRange('9', '5')).toMatch(/last seq/);
  });

  it('says what the last attempt got', () => {
    expect(lastAnswer({ lastStatusCode: 503, lastError: null })).toBe('HTTP 503');
    expect(lastAnswer({ lastStatusCode: null, lastError: 'timeout' })).toBe('timeout');
    expect(lastAnswer({})).toBe('–');
    expect(topicLabel('PLAN_FINISHED')).toBe('Plan finished');
  });
});
