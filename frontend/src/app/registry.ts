/** Every domain of the dashboard, in navigation order. A new domain appends itself here. */
import { machinesDomain } from '../domains/machines';
import { plansDomain } from '../domains/plans';
import { reviewsDomain } from '../domains/reviews';
import { workflowsDomain } from '../domains/workflows';
import type { DomainModule } from './domain';

/** The domains whose work people watch and decide; the Reviews page gathers their decisions. */
const WORK: readonly DomainModule[] = [plansDomain, workflowsDomain];

export const DOMAINS: readonly DomainModule[] = [...WORK, reviewsDomain(WORK), machinesDomain];
