/** Research plans in the dashboard: the overview page (plans first, then the other domains), one plan, and their part of the Reviews page. */
import type { DomainModule } from '../../core/domain';
import { nested } from '../../core/liveHooks';
import { PlansProvider, usePlanReviewCount } from './context';
import { GlanceProvider } from './Glance';
import { Overview } from './Overview';
import { PlanDetailView } from './PlanDetail';
import { PlanReviews } from './PlanReviews';
import { PlanTable } from './PlanTable';

export const plansDomain: DomainModule = {
  id: 'plans',
  views: [
    { path: '/', title: 'Overview', component: Overview },
    { path: '/plans', title: 'Research plans', component: PlanTable },
    { path: '/plans/:id', title: 'Research plan', component: PlanDetailView },
  ],
  nav: [
    { path: '/', label: 'Overview' },
    { path: '/plans', label: 'Plans' },
  ],
  provider: nested(PlansProvider, GlanceProvider),
  reviews: { useWaiting: usePlanReviewCount, Section: PlanReviews },
};
