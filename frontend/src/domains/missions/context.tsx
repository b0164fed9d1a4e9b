/**
 * What of the missions the views share (see live.ts): the newest page (the Missions page), the newest
 * few (the overview) and how many proposals wait (the badge, the Reviews page); each read only while a
 * view shows it.
 */
import { liveListContext, liveReadContext, nested } from '../../core/liveHooks';
import { missionReviewCountSource, missionsSource, newestMissionsSource, type MissionReviewCount, type MissionsState } from './live';

const missions = liveListContext(missionsSource);
const newest = liveListContext(newestMissionsSource);
const reviewCount = liveReadContext(missionReviewCountSource);

export const MissionsProvider = nested(missions.Provider, newest.Provider, reviewCount.Provider);

export const useMissions: () => MissionsState = missions.useListState;
export const useNewestMissions: () => MissionsState = newest.useListState;

/** Tell what is live that a decision taken on this page changed a mission (its events follow anyway). */
export function useMissionChanged(): (missionId: string) => void {
  const page = missions.useLiveList();
  const few = newest.useLiveList();
  const refreshCount = reviewCount.useRefresh();
  return (missionId) => {
    page?.reread(missionId);
    few?.reread(missionId);
    refreshCount();
  };
}

/** The proposals count and when it was read (null until read). */
export function useMissionReviews(): MissionReviewCount | null {
  return reviewCount.useRead().value;
}

/** Proposals waiting for a person, as the server counts them (null until read). */
export function useMissionReviewCount(): number | null {
  return useMissionReviews()?.waiting ?? null;
}
