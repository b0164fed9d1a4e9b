/** One plan, live (see core/rootLive.ts): `researchPlanUpdated(id)` snapshots and the plan's history. */
import type { GraphQLHttp } from '../../core/http';
import type { SubscriptionClient } from '../../core/resumable';
import { RootLive } from '../../core/rootLive';
import { PLAN_UPDATED, type PlanDetail } from './api';

export class PlanDetailLive extends RootLive<PlanDetail> {
  constructor(planId: string, http: GraphQLHttp, client: SubscriptionClient, onFailure: (error: unknown) => void) {
    const source = { id: planId, query: PLAN_UPDATED, field: 'researchPlanUpdated', filter: { rootId: planId } };
    super(source, http, client, onFailure);
  }
}
