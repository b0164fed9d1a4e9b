/** Builders for plan-domain test data. */
import type { PlanEvent, PlanSummary } from '../domains/plans/api';

export function plan(id: string, over: Partial<PlanSummary> = {}): PlanSummary {
  return {
    id,
    title: `plan ${id}`,
    researchQuestion: 'Why?',
    status: 'PLANNING',
    progressPercent: 0,
    stepCounts: { pending: 2, inProgress: 0, awaitingInput: 0, completed: 0, skipped: 0, failed: 0 },
    failureReason: null,
    createdAt: `2026-01-01T00:00:0${id}Z`,
    updatedAt: '2026-01-01T00:00:00Z',
    ...over,
  };
}

export function event(over: Partial<PlanEvent> = {}): PlanEvent {
  return {
    seq: 1,
    kind: 'step_transitioned',
    entityType: 'step',
    entityId: 's',
    rootType: 'plan',
    rootId: 'p',
    fromState: null,
    toState: null,
    actor: 'agent',
    data: null,
    createdAt: '2026-01-01T00:00:00Z',
    ...over,
  };
}
