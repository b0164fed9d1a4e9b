/** The live plan list for the whole page (see live.ts), shared by the plan views and the nav badge. */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';

import { useConnection } from '../../app/connection';
import { useStore } from '../../app/hooks';
import { useReviewSectionsWaiting } from '../../app/sections';
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

export function ReviewCount() {
  const waiting = waitingForReview(usePlans()) + (useReviewSectionsWaiting() ?? 0);
  if (!waiting) return null;
  return (
    <span className="count" data-testid="review-count" aria-label={`${waiting} waiting`}>
      {waiting}
    </span>
  );
}
