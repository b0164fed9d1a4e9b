/** The mission's event log, oldest first, growing live; each row names the hop, tool step or asset. */
import { useMemo } from 'react';

import { EventHistory } from '../plans/EventHistory';
import type { MissionDetail } from './api';
import { describeMissionEvent, entityNames, type MissionEvent } from './history';

interface Props {
  events: readonly MissionEvent[];
  loaded: boolean;
  mission: MissionDetail;
}

export function MissionHistory({ events, loaded, mission }: Props) {
  const names = useMemo(() => entityNames(mission), [mission]);
  return <EventHistory events={events} loaded={loaded} describe={(event) => describeMissionEvent(event, names)} />;
}
