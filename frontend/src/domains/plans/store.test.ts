import { describe, expect, it } from 'vitest';

import { initialList } from '../../core/liveList';
import { event } from '../../test/plans';
import type { StallAlert } from './api';
import { plansSource } from './live';
import { addAlert, touchesReviews } from './store';

const initialPlans = initialList(plansSource);

describe('stall alerts', () => {
  const alert = (seq: number): StallAlert => ({
    seq,
    planId: 'p',
    thresholdSeconds: 60,
    detectedAt: '2026-01-01T00:00:00Z',
    steps: [],
    plan: null,
  });

  it('keeps every alert once, newest first', () => {
    let state = addAlert(initialPlans, alert(4));
    state = addAlert(state, alert(9));
    const again = addAlert(state, alert(4));
    expect(again).toBe(state);
    expect(state.alerts.map((a) => a.seq)).toEqual([9, 4]);
  });

  it('keeps only the newest it shows', () => {
    let state = initialPlans;
    for (const seq of [3, 8, 5, 1]) state = addAlert(state, alert(seq), 2);
    expect(state.alerts.map((a) => a.seq)).toEqual([8, 5]);
  });
});

describe('events', () => {
  it('knows which events can change the review inbox', () => {
    expect(touchesReviews(event({ kind: 'user_reviewed', entityType: 'step' }))).toBe(true);
    expect(touchesReviews(event({ fromState: 'in_progress', toState: 'awaiting_input' }))).toBe(true);
    expect(touchesReviews(event({ fromState: 'awaiting_input', toState: 'completed' }))).toBe(true);
    expect(touchesReviews(event({ fromState: 'pending', toState: 'in_progress' }))).toBe(false);
    expect(touchesReviews(event({ entityType: 'plan', kind: 'plan_transitioned', toState: 'executing' }))).toBe(false);
  });
});
