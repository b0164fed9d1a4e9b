/** Pure state for the plan views: stall alerts, the review count, and which events change the inbox. */
import type { ListCore } from '../../core/liveList';
import type { PlanEvent, PlanSummary, StallAlert } from './api';

/** Newest first, one entry per seq. */
export function addAlert<S extends { alerts: readonly StallAlert[] }>(state: S, alert: StallAlert): S {
  if (state.alerts.some((a) => a.seq === alert.seq)) return state;
  return { ...state, alerts: [alert, ...state.alerts].sort((a, b) => b.seq - a.seq) };
}

export function waitingForReview(state: ListCore<PlanSummary>): number {
  return Object.values(state.byId).reduce((n, p) => n + p.stepCounts.awaitingInput, 0);
}

/** Events that can add a step to the inbox or take one out of it. */
export function touchesReviews(event: PlanEvent): boolean {
  if (event.kind === 'user_reviewed') return true;
  return event.entityType === 'step' && (event.fromState === 'awaiting_input' || event.toState === 'awaiting_input');
}
