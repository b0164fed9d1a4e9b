/** The live workflow list and reviewer's queue for the whole page (see live.ts), shared by every view. */
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';

import { useConnection } from '../../app/connection';
import { useStore } from '../../app/hooks';
import { Store } from '../../core/store';
import { WorkflowsLive } from './live';
import { initialWorkflows, type WorkflowsState } from './store';

const WorkflowsContext = createContext<WorkflowsLive | null>(null);

export function WorkflowsProvider({ children }: { children: ReactNode }) {
  const { http, live, report } = useConnection();
  const [workflows, setWorkflows] = useState<WorkflowsLive | null>(null);
  useEffect(() => {
    const started = new WorkflowsLive({ http, client: live, onFailure: report });
    setWorkflows(started);
    void started.start();
    return () => started.stop();
  }, [http, live, report]);
  return <WorkflowsContext.Provider value={workflows}>{children}</WorkflowsContext.Provider>;
}

const NOT_STARTED = new Store<WorkflowsState>(initialWorkflows);

export function useWorkflows(): WorkflowsState {
  return useStore(useContext(WorkflowsContext)?.store ?? NOT_STARTED);
}

/** Ask for the reviewer's queue again (after a decision made on this page). */
export function useRefreshGates(): () => void {
  const live = useContext(WorkflowsContext);
  return () => live?.refreshGates();
}

/** Steps waiting for a reviewer (null until the queue is read). */
export function useGateCount(): number | null {
  return useWorkflows().gates?.length ?? null;
}
