/**
 * What of the plans the views share (see live.ts): the newest few plans with the stall alerts (the
 * overview) and the count of steps awaiting review (the navigation badge; the Reviews page reads its
 * pages again each time it is read). Each is read only while a view shows it.
 */
import { liveListContext, liveReadContext, nested } from '../../core/liveHooks';
import { planReviewCountSource, plansSource, type PlansState } from './live';

const plans = liveListContext(plansSource);
const reviewCount = liveReadContext(planReviewCountSource);

export const PlansProvider = nested(plans.Provider, reviewCount.Provider);

export const usePlans: () => PlansState = plans.useListState;

/** The live count's latest read: a new one each time it is read again (the Reviews page re-reads then). */
export const usePlanReviewRead = reviewCount.useRead;

/** Read the count (and so the Reviews page) again after a decision taken there; its events follow anyway. */
export const useRefreshPlanReviews = reviewCount.useRefresh;

/** Plan steps awaiting a decision, as the server counts them (null until read). */
export function usePlanReviewCount(): number | null {
  return reviewCount.useRead().value;
}
