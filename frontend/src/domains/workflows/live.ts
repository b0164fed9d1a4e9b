/**
 * What of the workflows is live: the workflow list (core/liveList.ts; the newest page on the Workflows
 * page, the newest few on the overview), the steps waiting for a reviewer and their count
 * (core/liveRead.ts), each while a view shows it; one workflow with its history (core/rootLive.ts).
 */
import {
  WorkflowGateCountDocument,
  WorkflowGatesDocument,
  WorkflowsDocument,
  WorkflowSummaryDocument,
  WorkflowUpdatedDocument,
} from '../../core/graphql.generated';
import type { ListSource, ListState } from '../../core/liveList';
import type { ReadSource } from '../../core/liveRead';
import type { RootSource } from '../../core/rootLive';
import { OVERVIEW_FEW } from '../../core/sections';
import { LIST_SIZE, type GateRequest, type WorkflowDetail, type WorkflowSummary } from './api';
import { touchesGates } from './store';

export type WorkflowsState = ListState<WorkflowSummary, object>;

function workflowList(limit: number): ListSource<WorkflowSummary, object> {
  return {
    rootType: 'workflow',
    limit,
    readList: (http) => http.request(WorkflowsDocument, { first: limit }).then((r) => r.workflows),
    readRoot: (http, id) => http.request(WorkflowSummaryDocument, { id }).then((r) => r.workflow),
    created: (e) => e.kind === 'workflow_created',
    initial: {},
  };
}

/** The Workflows page: the newest page. */
export const workflowsSource = workflowList(LIST_SIZE);
/** The overview: the newest few. */
export const newestWorkflowsSource = workflowList(OVERVIEW_FEW);

/** Approval gates and escalations waiting for a reviewer, oldest first. */
export const gatesSource: ReadSource<readonly GateRequest[]> = {
  rootType: 'workflow',
  read: (http) =>
    http.request(WorkflowGatesDocument, { first: LIST_SIZE }).then((r) => r.workflowStepsAwaitingReview.edges.map((e) => e.node)),
  touchedBy: touchesGates,
};

/** How many steps wait for a reviewer (the navigation badge): a count, no list. */
export const gateCountSource: ReadSource<number> = {
  rootType: 'workflow',
  read: (http) => http.request(WorkflowGateCountDocument).then((r) => r.workflowStepsAwaitingReview.totalCount),
  touchedBy: touchesGates,
};

/** One workflow: `workflowUpdated(id)` snapshots (steps, compensations) and the workflow's events. */
export function workflowSource(id: string): RootSource<WorkflowDetail> {
  return { id, operation: WorkflowUpdatedDocument, field: 'workflowUpdated', filter: { rootType: 'workflow', rootId: id } };
}
