/** Workflows (seed 002) in the dashboard: their list (also on the overview), one workflow's DAG, and their part of the Reviews page. */
import type { DomainModule } from '../../core/domain';
import { useGateCount, WorkflowsProvider } from './context';
import { WorkflowDetailView } from './WorkflowDetail';
import { WorkflowList, WorkflowsSection } from './WorkflowList';
import { WorkflowReviews } from './WorkflowReviews';
import { WorkflowTable } from './WorkflowTable';

export const workflowsDomain: DomainModule = {
  id: 'workflows',
  views: [
    { path: '/workflows', title: 'Workflows', component: WorkflowList },
    { path: '/workflows/all', title: 'All workflows', component: WorkflowTable },
    { path: '/workflows/:id', title: 'Workflow', component: WorkflowDetailView },
  ],
  nav: [{ path: '/workflows', label: 'Workflows' }],
  provider: WorkflowsProvider,
  overview: WorkflowsSection,
  reviews: { useWaiting: useGateCount, Section: WorkflowReviews },
};
