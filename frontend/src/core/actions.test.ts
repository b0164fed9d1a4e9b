import { describe, expect, it } from 'vitest';

import { offers } from './actions';

describe('offers', () => {
  const available = [
    { mutation: 'cancelWorkflow', action: 'cancel' },
    { mutation: 'submitUserDecision', action: 'approve' },
  ];
  it('finds a mutation, and one of its actions', () => {
    expect(offers(available, 'cancelWorkflow')).toBe(true);
    expect(offers(available, 'submitUserDecision', 'approve')).toBe(true);
    expect(offers(available, 'submitUserDecision', 'reject')).toBe(false);
  });
  it('offers nothing when the server said nothing', () => {
    expect(offers(undefined, 'rerunWorkflow')).toBe(false);
    expect(offers([], 'rerunWorkflow')).toBe(false);
  });
});
