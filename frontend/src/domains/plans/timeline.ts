/** What the step timeline shows: user feedback split out of instructions, branches that fired. */
import { eventData } from '../../core/events';
import type { BranchingCondition, PlanEvent, Step } from './api';

/** The separator submitUserDecision(MODIFY) puts before each piece of feedback (server/services/plan_review.py). */
export const FEEDBACK_SEPARATOR = '\n\n---\n\nUser feedback: ';

export function splitFeedback(instructions: string): { original: string; feedback: string[] } {
  const [original = '', ...feedback] = instructions.split(FEEDBACK_SEPARATOR);
  return { original, feedback };
}

export interface FiredBranch {
  seq: number;
  stepId: string;
  action: string;
  description: string;
}

const OPS: Record<string, string> = { lt: '<', lte: '≤', gt: '>', gte: '≥', eq: '=', ne: '≠', contains: 'contains' };

/** One entry per branch_fired event, described against the plan's steps. */
export function firedBranches(events: readonly PlanEvent[], steps: readonly Step[]): FiredBranch[] {
  const orderOf = new Map(steps.map((s) => [s.id, s.order]));
  return events
    .filter((e) => e.kind === 'branch_fired')
    .map((e) => {
      const data = eventData(e);
      const action = String(data.action ?? '');
      const op = OPS[String(data.op ?? '').toLowerCase()] ?? String(data.op ?? '');
      const target = typeof data.targetStepId === 'string' ? orderOf.get(data.targetStepId) : undefined;
      const test = `${String(data.field ?? '?')} ${op} ${JSON.stringify(data.value)}`;
      const effect =
        action.toLowerCase() === 'fail' ? 'failed the plan' : target ? `skipped to step ${target}` : `did ${action}`;
      return { seq: e.seq, stepId: e.entityId, action, description: `${test} → ${effect}` };
    });
}

export function describeCondition(condition: BranchingCondition, steps: readonly Step[]): string {
  const orderOf = new Map(steps.map((s) => [s.id, s.order]));
  const after = orderOf.get(condition.afterStepId);
  const op = OPS[condition.op.toLowerCase()] ?? condition.op;
  const target = condition.targetStepId ? orderOf.get(condition.targetStepId) : undefined;
  const effect = condition.action === 'FAIL' ? 'fail the plan' : `skip to step ${target ?? '?'}`;
  return `After step ${after ?? '?'}: if ${condition.field} ${op} ${JSON.stringify(condition.value)}, ${effect}`;
}

/** A one-line description of an event for the history list. */
export function describeEvent(event: PlanEvent): string {
  const data = eventData(event);
  if (event.kind.endsWith('_transitioned')) {
    return `${event.entityType} ${words(event.fromState)} → ${words(event.toState)}`;
  }
  if (event.kind === 'user_reviewed') {
    if (data.action === 'review_requested') return `review requested: ${String(data.summary ?? '')}`;
    const feedback = data.feedback ? ` (“${String(data.feedback)}”)` : '';
    return `decision: ${words(String(data.decision ?? ''))}${feedback}`;
  }
  if (event.kind === 'plan_stalled') {
    const ids = Array.isArray(data.stepIds) ? data.stepIds.length : 0;
    return `stalled: ${ids} step(s) past ${String(data.thresholdSeconds ?? '?')} s`;
  }
  const detail = data.action ?? data.reason ?? data.summary ?? '';
  return detail ? `${words(event.kind)}: ${String(detail)}` : words(event.kind);
}

function words(value: string | null | undefined): string {
  return (value ?? '–').toLowerCase().replace(/_/g, ' ');
}
