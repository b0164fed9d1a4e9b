/** Research plans in the dashboard: the overview, one plan, and the review inbox. */
import type { DomainModule } from '../../app/domain';
import { PlansProvider, ReviewCount } from './context';
import { Overview } from './Overview';
import { PlanDetailView } from './PlanDetail';
import { ReviewInbox } from './ReviewInbox';

export const plansDomain: DomainModule = {
  id: 'plans',
  views: [
    { path: '/', title: 'Research plans', component: Overview },
    { path: '/plans/:id', title: 'Research plan', component: PlanDetailView },
    { path: '/reviews', title: 'Reviews', component: ReviewInbox },
  ],
  nav: [
    { path: '/', label: 'Research plans' },
    { path: '/reviews', label: 'Reviews', badge: ReviewCount },
  ],
  provider: PlansProvider,
};
