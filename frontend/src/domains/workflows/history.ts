/** A workflow's events in words, for the event history (names come from the workflow's snapshot). */
import { eventData, type LoggedEvent } from '../../core/events';
import { words } from '../../core/userErrors';

/** Step ids and compensation ids → the step's name. */
export type Names = ReadonlyMap<string, string>;

function text(value: unknown): string {
  return typeof value === 'string' ? value : value == null ? '' : JSON.stringify(value);
}

function seconds(value: unknown): string {
  const s = Number(value);
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${s}s`;
  return s % 60 ? `${Math.floor(s / 60)}m ${s % 60}s` : `${s / 60}m`;
}

function moved(event: LoggedEvent, what: string): string {
  const data = eventData(event);
  const reason = data.reason ? ` (${text(data.reason)})` : '';
  const outcome = data.outcome ? `, outcome ${words(text(data.outcome))}` : '';
  return `${what} ${words(event.fromState)} → ${words(event.toState)}${reason}${outcome}`;
}

export function describeWorkflowEvent(event: LoggedEvent, names: Names): string {
  const data = eventData(event);
  const step = `“${names.get(event.entityId) ?? (text(data.stepName) || 'a step')}”`;
  switch (event.kind) {
    case 'workflow_created': {
      const steps = Array.isArray(data.steps) ? data.steps.length : 0;
      return `created “${text(data.name)}” with ${steps} step${steps === 1 ? '' : 's'}`;
    }
    case 'workflow_transitioned':
      return moved(event, 'workflow');
    case 'workflow_step_transitioned':
      return moved(event, `step ${step}`);
    case 'workflow_compensation_transitioned':
      return moved(event, `undo of ${step}`);
    case 'workflow_step_claimed':
      return `${step} claimed by ${text(data.agent)} (attempt ${text(data.attempt)})`;
    case 'workflow_step_failed':
      return `${step} failed (${words(text(data.category))}, attempt ${text(data.attempt)}): ${text(data.message)} → ${text(data.action)}`;
    case 'workflow_step_retry_scheduled':
      return `${step} will be retried: attempt ${text(data.attempt)} in ${seconds(data.delaySeconds)}`;
    case 'workflow_step_retry_due':
      return `${step} back-off over: attempt ${text(data.attempt)} may be claimed`;
    case 'workflow_step_timed_out':
      return `${step} timed out after ${seconds(data.timeoutSeconds)}`;
    case 'workflow_timed_out':
      return `workflow timed out after ${seconds(data.timeoutSeconds)} (failure policy ${text(data.failurePolicy)})`;
    case 'workflow_escalated':
      return `${step} escalated to a reviewer: ${text(data.message)}`;
    case 'workflow_approval_requested':
      return `${step} waits for a reviewer's approval`;
    case 'workflow_step_approved':
      return `${step} approved by ${text(data.reviewer)}${data.comment ? `: ${text(data.comment)}` : ''}`;
    case 'workflow_step_rejected':
      return `${step} rejected by ${text(data.reviewer)}: ${text(data.reason)}`;
    case 'workflow_compensation_planned': {
      const order = Array.isArray(data.order) ? data.order.map((n) => `“${text(n)}”`) : [];
      return order.length ? `compensation planned: undo ${order.join(', then ')}` : 'compensation planned: nothing to undo';
    }
    default:
      return words(event.kind);
  }
}
