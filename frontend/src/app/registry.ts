/** Every domain of the dashboard, in navigation order. A new domain appends itself here. */
import { machinesDomain } from '../domains/machines';
import { missionsDomain } from '../domains/missions';
import { plansDomain } from '../domains/plans';
import type { DomainModule } from './domain';

export const DOMAINS: readonly DomainModule[] = [plansDomain, missionsDomain, machinesDomain];
