/** Missions in the dashboard (seed 004): the list (also on the overview), one mission, and their reviews. */
import './missions.css';

import type { DomainModule } from '../../core/domain';
import { MissionsProvider, useMissionReviewCount } from './context';
import { MissionDetailView } from './MissionDetail';
import { MissionReviews } from './MissionReviews';
import { MissionTable } from './MissionTable';
import { MissionsPage, MissionsSection } from './Overview';

export const missionsDomain: DomainModule = {
  id: 'missions',
  views: [
    { path: '/missions', title: 'Missions', component: MissionsPage },
    { path: '/missions/all', title: 'All missions', component: MissionTable },
    { path: '/missions/:id', title: 'Mission', component: MissionDetailView },
  ],
  nav: [{ path: '/missions', label: 'Missions' }],
  provider: MissionsProvider,
  overview: MissionsSection,
  reviews: { useWaiting: useMissionReviewCount, Section: MissionReviews },
};
