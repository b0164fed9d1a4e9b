import { describe, expect, it } from 'vitest';

import { Batch } from './batch';

describe('Batch', () => {
  it('hands every key added before the flush over once, then starts a new batch', () => {
    const runs: (() => void)[] = [];
    const flushed: string[][] = [];
    const batch = new Batch<string>((keys) => flushed.push(keys), (run) => runs.push(run));
    batch.add('a');
    batch.add('b');
    batch.add('a');
    expect(runs).toHaveLength(1);
    runs.shift()?.();
    batch.add('c');
    runs.shift()?.();
    expect(flushed).toEqual([['a', 'b'], ['c']]);
  });
});
