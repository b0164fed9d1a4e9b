/**
 * What of the missions is live: the mission list (core/liveList.ts; the newest page on the Missions page,
 * the newest few on the overview) and how many proposals wait for a person (core/liveRead.ts), each
 * while a view shows it; one mission with its history (core/rootLive.ts).
 */
import {
  MissionReviewCountDocument,
  MissionsDocument,
  MissionSummaryDocument,
  MissionUpdatedDocument,
} from '../../core/graphql.generated';
import type { ListSource, ListState } from '../../core/liveList';
import type { ReadSource } from '../../core/liveRead';
import type { RootSource } from '../../core/rootLive';
import { OVERVIEW_FEW } from '../../core/sections';
import type { MissionDetail, MissionSummary } from './api';

export const MISSION_LIST_SIZE = 100;

export type MissionsState = ListState<MissionSummary, object>;

function missionList(limit: number): ListSource<MissionSummary, object> {
  return {
    rootType: 'mission',
    limit,
    readList: (http) => http.request(MissionsDocument, { first: limit }).then((r) => r.missions),
    readRoot: (http, id) => http.request(MissionSummaryDocument, { id }).then((r) => r.mission),
    created: (e) => e.kind === 'mission_proposed',
    initial: {},
  };
}

/** The Missions page: the newest page. */
export const missionsSource = missionList(MISSION_LIST_SIZE);
/** The overview: the newest few. */
export const newestMissionsSource = missionList(OVERVIEW_FEW);

export interface MissionReviewCount {
  /** How many proposals wait for a person (the server's count). */
  waiting: number;
  /** When the count was read (this browser's clock, ms): after every mission event, so the Reviews
   * page reads its page of proposals again when it changes. */
  readAt: number;
}

/** Any change to a mission may add a proposal or take one out. */
export const missionReviewCountSource: ReadSource<MissionReviewCount> = {
  rootType: 'mission',
  read: async (http) => {
    const { missionReviews } = await http.request(MissionReviewCountDocument, {});
    return { waiting: missionReviews.totalCount, readAt: Date.now() };
  },
  touchedBy: () => true,
};

/**
 * One mission: `missionUpdated(id)` sends the whole mission (hops, tool steps, assets) now and after
 * every change; `receivedAt` tells when each snapshot arrived, so asset countdowns start from the
 * server's `expiresInSeconds`.
 */
export function missionSource(id: string): RootSource<MissionDetail> {
  return { id, operation: MissionUpdatedDocument, field: 'missionUpdated', filter: { rootType: 'mission', rootId: id } };
}
