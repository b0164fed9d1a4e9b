/** Pure state for the plan views: stall alerts, and which events change the inbox. */
import type { PlanEvent, StallAlert } from './api';

/** Newest first, one entry per seq, at most `keep` of them (the newest). */
export function addAlert<S extends { alerts: readonly StallAlert[] }>(state: S, alert: StallAlert, keep = Infinity): S {
  if (state.alerts.some((a) => a.seq === alert.seq)) return state;
  return { ...state, alerts: [alert, ...state.alerts].sort((a, b) => b.seq - a.seq).slice(0, keep) };
}

/** Events that can add a step to the inbox or take one out of it. */
export function touchesReviews(event: PlanEvent): boolean {
  if (event.kind === 'user_reviewed') return true;
  return event.entityType === 'step' && (event.fromState === 'awaiting_input' || event.toState === 'awaiting_input');
}
