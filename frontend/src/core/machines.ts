/** The engine's state machines (the stateMachines query), read once per page and shared by every view. */
import { useEffect, useState } from 'react';

import { useConnection } from './connection';
import type { MachineData } from './diagramLayout';
import { StateMachinesDocument } from './graphql.generated';
import type { GraphQLHttp } from './http';

let cached: Promise<MachineData[]> | null = null;

function load(http: GraphQLHttp): Promise<MachineData[]> {
  cached ??= http.request(StateMachinesDocument).then((r) => r.stateMachines);
  cached.catch(() => {
    cached = null;
  });
  return cached;
}

export function useStateMachines(): { machines: MachineData[] | null; error: string | null } {
  const { http, report } = useConnection();
  const [machines, setMachines] = useState<MachineData[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let active = true;
    load(http).then(
      (m) => active && setMachines(m),
      (e: unknown) => {
        report(e);
        if (active) setError(e instanceof Error ? e.message : String(e));
      },
    );
    return () => {
      active = false;
    };
  }, [http, report]);
  return { machines, error };
}
