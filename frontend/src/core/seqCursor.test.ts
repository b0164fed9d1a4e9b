import { describe, expect, it } from 'vitest';

import { mergeBySeq, SeqCursor } from './seqCursor';

describe('SeqCursor', () => {
  it('accepts each newer seq once and refuses replays and duplicates', () => {
    const cursor = new SeqCursor(3);
    expect([2, 3, 4, 4, 5, 1, 7].map((seq) => cursor.accept(seq))).toEqual([false, false, true, false, true, false, true]);
    expect(cursor.last).toBe(7);
  });

  it('refuses a seq that is not an integer', () => {
    const cursor = new SeqCursor();
    expect(cursor.accept(Number.NaN)).toBe(false);
    expect(cursor.accept(1.5)).toBe(false);
    expect(cursor.last).toBe(0);
  });
});

describe('mergeBySeq', () => {
  it('keeps one entry per seq, sorted', () => {
    const merged = mergeBySeq([{ seq: 1 }, { seq: 3 }], [{ seq: 3 }, { seq: 2 }, { seq: 2 }, { seq: 4 }]);
    expect(merged.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
  });

  it('returns the same list when nothing is new, so React skips a render', () => {
    const list = [{ seq: 1 }, { seq: 2 }];
    expect(mergeBySeq(list, [{ seq: 2 }])).toBe(list);
  });
});
