import { describe, expect, it } from 'vitest';

import { event, plan } from '../../test/plans';
import type { StallAlert } from './api';
import {
  addAlert,
  initialPlans,
  plansInOrder,
  touchesReviews,
  upsertPlans,
  waitingForReview,
} from './store';

describe('plan list', () => {
  it('lists plans newest first and replaces a plan with its newer snapshot', () => {
    let state = upsertPlans(initialPlans, [plan('1'), plan('3'), plan('2')]);
    expect(plansInOrder(state).map((p) => p.id)).toEqual(['3', '2', '1']);
    state = upsertPlans(state, [plan('2', { status: 'EXECUTING', updatedAt: '2026-01-01T00:01:00Z' })]);
    expect(state.byId['2']?.status).toBe('EXECUTING');
    expect(state.order).toEqual(['3', '2', '1']);
  });

  it('never lets an older snapshot overwrite a newer one (re-reads may finish out of order)', () => {
    const newer = upsertPlans(initialPlans, [plan('1', { status: 'COMPLETED', updatedAt: '2026-01-01T00:05:00Z' })]);
    const after = upsertPlans(newer, [plan('1', { status: 'EXECUTING', updatedAt: '2026-01-01T00:04:00Z' })]);
    expect(after).toBe(newer);
  });

  it('counts the steps waiting for review across plans', () => {
    const counts = { pending: 0, inProgress: 0, awaitingInput: 2, completed: 0, skipped: 0, failed: 0 };
    const state = upsertPlans(initialPlans, [plan('1', { stepCounts: counts }), plan('2')]);
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
