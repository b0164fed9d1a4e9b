import { describe, expect, it } from 'vitest';

import { initialList, upsertRoots } from '../../core/liveList';
import { event, plan } from '../../test/plans';
import type { StallAlert } from './api';
import { plansSource } from './live';
import { addAlert, touchesReviews, waitingForReview } from './store';

const initialPlans = initialList(plansSource);

describe('plan list', () => {
  it('counts the steps waiting for review across plans', () => {
    const counts = { pending: 0, inProgress: 0, awaitingInput: 2, completed: 0, skipped: 0, failed: 0 };
    const state = upsertRoots(initialPlans, [plan('1', { stepCounts: counts }), plan('2')]);
    expect(waitingForReview(state)).toBe(2);
  });
});

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
