import { describe, expect, it } from 'vitest';

import { markAnswered, noneAnswered, stillWaiting } from './answered';

const id = (item: { id: string }) => item.id;

describe('a live queue with what was answered here taken out', () => {
  it('hides answered items from the read they were answered on, and keeps the rest in order', () => {
    const queue = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
    let answered = markAnswered(noneAnswered<{ id: string }>(), queue, 'a');
    answered = markAnswered(answered, queue, 'c');
    expect(stillWaiting(queue, answered, id)).toEqual([{ id: 'b' }]);
  });

  it('lets the next read take over, so an item asking again shows again', () => {
    const first = [{ id: 'a' }, { id: 'b' }];
    const answered = markAnswered(noneAnswered<{ id: string }>(), first, 'a');
    const next = [{ id: 'a' }];
    expect(stillWaiting(next, answered, id)).toBe(next);
    // An answer given on the newer read forgets those given on the older one.
    expect(markAnswered(answered, next, 'x').ids).toEqual(new Set(['x']));
  });

  it('is null until the queue is read', () => {
    expect(stillWaiting(null, noneAnswered<{ id: string }>(), id)).toBeNull();
  });
});
