/**
 * What of the missions is live: the mission list with what waits for a person (core/liveList.ts), for as
 * long as the dashboard is open, and one mission with its history (core/rootLive.ts).
 */
import {
  MissionReviewCountDocument,
  MissionsDocument,
  MissionSummaryDocument,
  MissionUpdatedDocument,
} from '../../core/graphql.generated';
import type { ListSource, ListState } from '../../core/liveList';
import type { RootSource } from '../../core/rootLive';
import type { MissionDetail, MissionSummary } from './api';

export const MISSION_LIST_SIZE = 100;

export interface MissionsExtra {
  /** How many proposals wait for a person (the server's count); null until read. */
  waiting: number | null;
  /** When the count was last read (this browser's clock, ms): after every mission event, so the Reviews
   * page reads its page of proposals again when it changes. */
  reviewsReadAt: number;
}

export type MissionsState = ListState<MissionSummary, MissionsExtra>;

export const missionsSource: ListSource<MissionSummary, MissionsExtra> = {
  rootType: 'mission',
  limit: MISSION_LIST_SIZE,
  readList: (http) => http.request(MissionsDocument, { first: MISSION_LIST_SIZE }).then((r) => r.missions),
  readRoot: (http, id) => http.request(MissionSummaryDocument, { id }).then((r) => r.mission),
  created: (e) => e.kind === 'mission_proposed',
  initial: { waiting: null, reviewsReadAt: 0 },
  sides: {
    // Any change to a mission may add a proposal or take one out.
    reviews: {
      read: async (http, now) => {
        const { missionReviews } = await http.request(MissionReviewCountDocument, {});
        return { waiting: missionReviews.totalCount, reviewsReadAt: now() };
      },
      touchedBy: () => true,
    },
  },
};

/**
 * One mission: `missionUpdated(id)` sends the whole mission (hops, tool steps, assets) now and after
 * every change; `receivedAt` tells when each snapshot arrived, so asset countdowns start from the
 * server's `expiresInSeconds`.
 */
export function missionSource(id: string): RootSource<MissionDetail> {
  return { id, operation: MissionUpdatedDocument, field: 'missionUpdated', filter: { rootType: 'mission', rootId: id } };
}
