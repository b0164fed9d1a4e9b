/** The live plan list for the whole page (see live.ts), shared by the plan views and the nav badge. */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';

import { useConnection } from '../../app/connection';
import { useStore } from '../../app/hooks';
import { Store } from '../../core/store';
import { PlansLive } from './live';
import { initialPlans, waitingForReview, type PlansState } from './store';

const PlansContext = createContext<PlansLive | null>(null);

export function PlansProvider({ children }: { children: ReactNode }) {
  const { http, live, report } = useConnection();
  const [plans, setPlans] = useState<PlansLive | null>(null);
  useEffect(() => {
    const started = new PlansLive({ http, client: live, onFailure: report });
    setPlans(started);
    void started.start();
    return () => started.stop();
  }, [http, live, report]);
  return <PlansContext.Provider value={plans}>{children}</PlansContext.Provider>;
}

const NOT_STARTED = new Store<PlansState>(initialPlans);

export function usePlans(): PlansState {
  return useStore(useContext(PlansContext)?.store ?? NOT_STARTED);
}

/** Plan steps awaiting a decision (null until the plan list is loaded). */
export function usePlanReviewCount(): number | null {
  const plans = usePlans();
  return plans.loaded ? waitingForReview(plans) : null;
}
