/** Every domain of the dashboard, in navigation order. A new domain appends itself here. */
import type { DomainModule } from "../core/domain";
import { activityDomain } from "../domains/activity";
import { machinesDomain } from "../domains/machines";
import { missionsDomain } from "../domains/missions";
import { plansDomain } from "../domains/plans";
import { reviewsDomain } from "../domains/reviews";
import { webhooksDomain } from "../domains/webhooks";
import { workflowsDomain } from "../domains/workflows";

/**
 * The domains whose work people watch and decide: each has its own pages, a section of the overview
 * (plans own the overview page itself) and a section of the Reviews page, in this order.
 */
const WORK: readonly DomainModule[] = [
  plansDomain,
  missionsDomain,
  workflowsDomain,
];

export const DOMAINS: readonly DomainModule[] = [
  ...WORK,
  reviewsDomain(WORK),
  activityDomain,
  webhooksDomain,
  machinesDomain,
];
