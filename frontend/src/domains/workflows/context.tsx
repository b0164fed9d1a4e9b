/** The live workflow list and reviewer's queue for the whole page (see live.ts), shared by every view. */
import { liveListContext } from '../../core/liveHooks';
import { workflowsSource, type WorkflowsState } from './live';

const workflows = liveListContext(workflowsSource);

export const WorkflowsProvider = workflows.Provider;

export const useWorkflows: () => WorkflowsState = workflows.useListState;

/** Ask for the reviewer's queue again (after a decision made on this page). */
export function useRefreshGates(): () => void {
  const live = workflows.useLiveList();
  return () => live?.refresh('gates');
}

/** Steps waiting for a reviewer (null until the queue is read). */
export function useGateCount(): number | null {
  return useWorkflows().gates?.length ?? null;
}
