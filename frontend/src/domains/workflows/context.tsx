/**
 * What of the workflows the views share (see live.ts): the newest page (the Workflows page), the newest
 * few (the overview) and the count of the reviewer's queue (the badge; the Reviews page reads its pages
 * again each time it is read); each read only while a view shows it.
 */
import { liveListContext, liveReadContext, nested } from '../../core/liveHooks';
import { gateCountSource, newestWorkflowsSource, workflowsSource, type WorkflowsState } from './live';

const workflows = liveListContext(workflowsSource);
const newest = liveListContext(newestWorkflowsSource);
const gateCount = liveReadContext(gateCountSource);

export const WorkflowsProvider = nested(workflows.Provider, newest.Provider, gateCount.Provider);

export const useWorkflows: () => WorkflowsState = workflows.useListState;
export const useNewestWorkflows: () => WorkflowsState = newest.useListState;

/** The count's latest read: a new one each time it is read again (the Reviews page re-reads then). */
export const useGateCountRead = gateCount.useRead;

/** Read the count (and so the Reviews page) again after a decision made there. */
export const useRefreshGates = gateCount.useRefresh;

/** Steps waiting for a reviewer, as the server counts them (null until read). */
export function useGateCount(): number | null {
  return gateCount.useRead().value;
}
