/** Pure state for the workflow views: the list, the steps waiting for a reviewer, and what events change. */
import type { LoggedEvent } from '../../core/events';
import type { CompensationSummary, GateRequest, WorkflowStepCounts, WorkflowSummary } from './api';

export interface WorkflowsState {
  loaded: boolean;
  byId: Readonly<Record<string, WorkflowSummary>>;
  /** Newest first, as the API lists them. */
  order: readonly string[];
  /** How many the tenant has (the list holds the newest LIST_SIZE). */
  total: number;
  /** Approval gates and escalations waiting for a reviewer, oldest first; null until read. */
  gates: readonly GateRequest[] | null;
  error: string | null;
}

export const initialWorkflows: WorkflowsState = {
  loaded: false,
  byId: {},
  order: [],
  total: 0,
  gates: null,
  error: null,
};

function newestFirst(a: WorkflowSummary, b: WorkflowSummary): number {
  return b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id);
}

/** Insert or replace workflows (the caller drops re-reads that an answer to a later request overtook). */
export function upsertWorkflows(state: WorkflowsState, workflows: readonly WorkflowSummary[]): WorkflowsState {
  if (workflows.length === 0) return state;
  const byId = { ...state.byId };
  const added = workflows.filter((w) => !byId[w.id]).length;
  for (const workflow of workflows) byId[workflow.id] = workflow;
  const order = Object.values(byId)
    .sort(newestFirst)
    .map((w) => w.id);
  return { ...state, byId, order, total: state.total + added };
}

export function workflowsInOrder(state: WorkflowsState): WorkflowSummary[] {
  return state.order.flatMap((id) => (state.byId[id] ? [state.byId[id]] : []));
}

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
  const count = (status: string) => compensations.filter((c) => c.status === status).length;
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
export function compensationText(workflow: { compensations: readonly CompensationSummary[]; status: string }): string | null {
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
