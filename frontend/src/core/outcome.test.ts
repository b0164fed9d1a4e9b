import { describe, expect, it } from 'vitest';

import { progressTone } from './outcome';

describe('progressTone', () => {
  it('never colours failed, cancelled or rolled back work as a success', () => {
    expect(progressTone('FAILED')).toBe('bad');
    expect(progressTone('CANCELLED')).toBe('bad');
    expect(progressTone('COMPLETED', 'ROLLED_BACK')).toBe('undone');
    expect(progressTone('FAILED', 'PARTIALLY_ROLLED_BACK')).toBe('bad');
  });
  it('keeps green for success and tells running work apart', () => {
    expect(progressTone('COMPLETED')).toBe('ok');
    expect(progressTone('COMPLETED', 'SUCCEEDED')).toBe('ok');
    expect(progressTone('EXECUTING')).toBe('running');
  });
});
