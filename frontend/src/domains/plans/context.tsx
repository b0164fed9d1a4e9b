/** The live plan list for the whole page (see live.ts), shared by the plan views and the nav badge. */
import { liveListContext } from '../../core/liveHooks';
import { plansSource, type PlansState } from './live';
import { waitingForReview } from './store';

const plans = liveListContext(plansSource);

export const PlansProvider = plans.Provider;

export const usePlans: () => PlansState = plans.useListState;

/** Read the review inbox again (after a decision taken on this page; its events follow anyway). */
export function useRefreshPlanInbox(): () => void {
  const live = plans.useLiveList();
  return () => live?.refresh('inbox');
}

/** Plan steps awaiting a decision (null until the plan list is loaded). */
export function usePlanReviewCount(): number | null {
  const state = usePlans();
  return state.loaded ? waitingForReview(state) : null;
}
