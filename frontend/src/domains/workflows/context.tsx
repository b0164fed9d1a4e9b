/**
 * What of the workflows the views share (see live.ts): the newest page (the Workflows page), the newest
 * few (the overview), the reviewer's queue (the Reviews page) and its count (the badge); each read only
 * while a view shows it.
 */
import { liveListContext, liveReadContext, nested } from '../../core/liveHooks';
import { gateCountSource, gatesSource, newestWorkflowsSource, workflowsSource, type WorkflowsState } from './live';

const workflows = liveListContext(workflowsSource);
const newest = liveListContext(newestWorkflowsSource);
const gates = liveReadContext(gatesSource);
const gateCount = liveReadContext(gateCountSource);

export const WorkflowsProvider = nested(workflows.Provider, newest.Provider, gates.Provider, gateCount.Provider);

export const useWorkflows: () => WorkflowsState = workflows.useListState;
export const useNewestWorkflows: () => WorkflowsState = newest.useListState;

/** The reviewer's queue, oldest first (value null until read). */
export const useGates = gates.useRead;

/** Ask for the reviewer's queue and its count again (after a decision made on this page). */
export function useRefreshGates(): () => void {
  const queue = gates.useRefresh();
  const count = gateCount.useRefresh();
  return () => {
    queue();
    count();
  };
}

/** Steps waiting for a reviewer, as the server counts them (null until read). */
export function useGateCount(): number | null {
  return gateCount.useRead().value;
}
