/** The live mission list and inbox for the whole page (see live.ts), shared by the mission views. */
import { liveListContext } from '../../core/liveHooks';
import { missionsSource, type MissionsState } from './live';

const missions = liveListContext(missionsSource);

export const MissionsProvider = missions.Provider;

export const useMissions: () => MissionsState = missions.useListState;

/** Tell the live list that a decision taken on this page changed a mission (its events follow anyway). */
export function useMissionChanged(): (missionId: string) => void {
  const live = missions.useLiveList();
  return (missionId) => {
    live?.reread(missionId);
    live?.refresh('reviews');
  };
}

/** Proposals waiting for a person, as the server counts them (null until read). */
export function useMissionReviewCount(): number | null {
  return useMissions().waiting;
}
