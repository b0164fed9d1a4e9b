/**
 * What of the workflows is live: the workflow list with the steps waiting for a reviewer
 * (core/liveList.ts), for as long as the dashboard is open, and one workflow with its history
 * (core/rootLive.ts).
 */
import {
  WorkflowGatesDocument,
  WorkflowsDocument,
  WorkflowSummaryDocument,
  WorkflowUpdatedDocument,
} from '../../core/graphql.generated';
import { nodesSide, type ListSource, type ListState } from '../../core/liveList';
import type { RootSource } from '../../core/rootLive';
import { LIST_SIZE, type GateRequest, type WorkflowDetail, type WorkflowSummary } from './api';
import { touchesGates } from './store';

export interface WorkflowsExtra {
  /** Approval gates and escalations waiting for a reviewer, oldest first; null until read. */
  gates: readonly GateRequest[] | null;
}

export type WorkflowsState = ListState<WorkflowSummary, WorkflowsExtra>;

export const workflowsSource: ListSource<WorkflowSummary, WorkflowsExtra> = {
  rootType: 'workflow',
  limit: LIST_SIZE,
  readList: (http) => http.request(WorkflowsDocument, { first: LIST_SIZE }).then((r) => r.workflows),
  readRoot: (http, id) => http.request(WorkflowSummaryDocument, { id }).then((r) => r.workflow),
  created: (e) => e.kind === 'workflow_created',
  initial: { gates: null },
  sides: {
    gates: nodesSide<WorkflowsExtra, GateRequest>(
      'gates',
      (http) => http.request(WorkflowGatesDocument, { first: LIST_SIZE }).then((r) => r.workflowStepsAwaitingReview),
      touchesGates,
    ),
  },
};

/** One workflow: `workflowUpdated(id)` snapshots (steps, compensations) and the workflow's events. */
export function workflowSource(id: string): RootSource<WorkflowDetail> {
  return { id, operation: WorkflowUpdatedDocument, field: 'workflowUpdated', filter: { rootType: 'workflow', rootId: id } };
}
