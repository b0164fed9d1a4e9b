/**
 * What of the missions is live: the mission list with what waits for a person (core/liveList.ts), for as
 * long as the dashboard is open, and one mission with its history (core/rootLive.ts).
 */
import {
  MissionInboxDocument,
  MissionsDocument,
  MissionSummaryDocument,
  MissionUpdatedDocument,
} from '../../core/graphql.generated';
import type { ListSource, ListState } from '../../core/liveList';
import type { RootSource } from '../../core/rootLive';
import type { MissionDetail, MissionInbox, MissionSummary } from './api';

export const MISSION_LIST_SIZE = 100;
export const INBOX_SIZE = 50;

export interface MissionsExtra {
  /** What waits for a person (missionReviewInbox); null until read. */
  inbox: MissionInbox | null;
  /** When the inbox arrived (this browser's clock, ms): its assets' countdowns start from it. */
  inboxReceivedAt: number;
}

export type MissionsState = ListState<MissionSummary, MissionsExtra>;

export const missionsSource: ListSource<MissionSummary, MissionsExtra> = {
  rootType: 'mission',
  limit: MISSION_LIST_SIZE,
  readList: (http) => http.request(MissionsDocument, { first: MISSION_LIST_SIZE }).then((r) => r.missions),
  readRoot: (http, id) => http.request(MissionSummaryDocument, { id }).then((r) => r.mission),
  initial: { inbox: null, inboxReceivedAt: 0 },
  sides: {
    // Any change to a mission may add a proposal to the inbox or take one out.
    inbox: {
      read: async (http, now) => {
        const { missionReviewInbox } = await http.request(MissionInboxDocument, { first: INBOX_SIZE });
        return { inbox: missionReviewInbox, inboxReceivedAt: now() };
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
