/**
 * What of the workflows is live: the workflow list (core/liveList.ts; the newest page on the Workflows
 * page, the newest few on the overview), the count of steps waiting for a reviewer (core/liveRead.ts;
 * the Reviews page reads its pages again whenever it is read again), each while a view shows it; one workflow with its history (core/rootLive.ts).
 */
import {
  WorkflowGateCountDocument,
  WorkflowsDocument,
  WorkflowSummaryDocument,
  WorkflowUpdatedDocument,
} from '../../core/graphql.generated';
import type { ListSource, ListState } from '../../core/liveList';
import type { ReadSource } from '../../core/liveRead';
import type { RootSource } from '../../core/rootLive';
import { OVERVIEW_FEW } from '../../core/sections';
import { LIST_SIZE, type WorkflowDetail, type WorkflowSummary } from './api';
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
