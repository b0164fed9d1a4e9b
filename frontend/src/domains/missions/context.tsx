/** The live mission list and inbox for the whole page (see live.ts), shared by the mission views. */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';

import { useConnection } from '../../app/connection';
import { useStore } from '../../app/hooks';
import { Store } from '../../core/store';
import { MissionsLive } from './live';
import { initialMissions, inboxSize, type MissionsState } from './store';

const MissionsContext = createContext<MissionsLive | null>(null);

export function MissionsProvider({ children }: { children: ReactNode }) {
  const { http, live, report } = useConnection();
  const [missions, setMissions] = useState<MissionsLive | null>(null);
  useEffect(() => {
    const started = new MissionsLive({ http, client: live, onFailure: report });
    setMissions(started);
    void started.start();
    return () => started.stop();
  }, [http, live, report]);
  return <MissionsContext.Provider value={missions}>{children}</MissionsContext.Provider>;
}

const NOT_STARTED = new Store<MissionsState>(initialMissions);

export function useMissions(): MissionsState {
  return useStore(useContext(MissionsContext)?.store ?? NOT_STARTED);
}

/** Tell the live list that a decision taken on this page changed a mission (its events follow anyway). */
export function useMissionChanged(): (missionId: string) => void {
  const live = useContext(MissionsContext);
  return (missionId) => live?.changed(missionId);
}

/** Proposals waiting for a person (null until the inbox is read). */
export function useMissionReviewCount(): number | null {
  return inboxSize(useMissions().inbox);
}
