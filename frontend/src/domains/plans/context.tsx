/**
 * What of the plans the views share (see live.ts): the newest few plans with the stall alerts (the
 * overview), the review inbox (the Reviews page) and its count (the navigation badge). Each is read only
 * while a view shows it.
 */
import { liveListContext, liveReadContext, nested } from '../../core/liveHooks';
import { planInboxSource, planReviewCountSource, plansSource, type PlansState } from './live';

const plans = liveListContext(plansSource);
const inbox = liveReadContext(planInboxSource);
const reviewCount = liveReadContext(planReviewCountSource);

export const PlansProvider = nested(plans.Provider, inbox.Provider, reviewCount.Provider);

export const usePlans: () => PlansState = plans.useListState;

export const usePlanInbox = inbox.useRead;

/** Read the review inbox again (after a decision taken on this page; its events follow anyway). */
export const useRefreshPlanInbox = inbox.useRefresh;

/** Plan steps awaiting a decision, as the server counts them (null until read). */
export function usePlanReviewCount(): number | null {
  return reviewCount.useRead().value;
}
