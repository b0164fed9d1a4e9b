/** Pure state for the workflow views: progress, compensation, and which events touch the reviewer's queue. */
import type { LoggedEvent } from '../../core/events';
import type { CompensationSummary, WorkflowStepCounts, WorkflowSummary } from './api';

export interface Progress {
  total: number;
  /** Completed, skipped or failed: nothing more will happen to them in this run. */
  done: number;
  percent: number;
}

export function stepProgress(counts: WorkflowStepCounts): Progress {
  const total = counts.pending + counts.running + counts.completed + counts.failed + counts.skipped;
  const done = counts.completed + counts.skipped + counts.failed;
  return { total, done, percent: total ? (100 * done) / total : 0 };
}

export interface CompensationProgress {
  total: number;
  undone: number;
  running: number;
  failed: number;
}

export function compensationProgress(compensations: readonly CompensationSummary[]): CompensationProgress {
  const count = (status: CompensationSummary['status']) => compensations.filter((c) => c.status === status).length;
  return { total: compensations.length, undone: count('COMPLETED'), running: count('RUNNING'), failed: count('FAILED') };
}

/** `2 of 4 steps done · 1 running · 1 failed`. */
export function stepCountsText(workflow: { stepCounts: WorkflowStepCounts }): string {
  const c = workflow.stepCounts;
  const { done, total } = stepProgress(c);
  return [
    `${done} of ${total} steps done`,
    c.running ? `${c.running} running` : '',
    c.failed ? `${c.failed} failed` : '',
    c.skipped ? `${c.skipped} skipped` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/** How far compensation got, or null when it never started. */
export function compensationText(workflow: Pick<WorkflowSummary, 'compensations' | 'status'>): string | null {
  const p = compensationProgress(workflow.compensations);
  if (!p.total) return workflow.status === 'COMPENSATING' ? 'Compensating: nothing to undo' : null;
  const failed = p.failed ? ` · ${p.failed} failed` : '';
  const prefix = workflow.status === 'COMPENSATING' ? 'Compensating' : 'Compensation';
  return `${prefix}: ${p.undone} of ${p.total} undone${failed}`;
}

const REVIEW_KINDS = new Set([
  'workflow_approval_requested',
  'workflow_escalated',
  'workflow_step_approved',
  'workflow_step_rejected',
]);

/**
 * Events that can put a step in front of a reviewer or take it away: a gate opening, an escalation, a
 * decision, or a running step ending otherwise (a timeout, or the workflow cancelling it).
 */
export function touchesGates(event: LoggedEvent): boolean {
  if (REVIEW_KINDS.has(event.kind)) return true;
  return event.entityType === 'workflow_step' && event.kind.endsWith('_transitioned') && event.fromState === 'running';
}

/** How a finished workflow ended, as the page colours it; null while it runs. */
export type OutcomeTone = 'succeeded' | 'rolled_back' | 'partially_rolled_back' | 'failed';

/**
 * The workflow's outcome (seed 002 §4): the server's when it gives one; otherwise derived from its status
 * and its compensation records, so a compensated failure never shows as a plain success.
 */
export function workflowOutcome(workflow: Pick<WorkflowSummary, 'status' | 'outcome' | 'compensations'>): OutcomeTone | null {
  if (workflow.outcome) return workflow.outcome.toLowerCase() as OutcomeTone;
  const p = compensationProgress(workflow.compensations);
  if (workflow.status !== 'COMPLETED' && workflow.status !== 'FAILED') return null;
  if (p.failed) return 'partially_rolled_back';
  if (p.total && p.undone === p.total) return 'rolled_back';
  return workflow.status === 'COMPLETED' ? 'succeeded' : 'failed';
}

/** A completed step that compensation undid (or failed to undo) is coloured as such, not as a success. */
export function stepOutcome(status: string, undo: string | undefined): 'undone' | 'undo_failed' | null {
  if (status !== 'COMPLETED' || !undo) return null;
  if (undo === 'COMPLETED') return 'undone';
  return undo === 'FAILED' ? 'undo_failed' : null;
}
