/** The mission's event log, oldest first, growing live; each row names the hop, tool step or asset. */
import { useMemo } from 'react';

import type { LoggedEvent } from '../../core/events';
import { EventHistory } from '../../ui/EventHistory';
import type { MissionDetail } from './api';
import { describeMissionEvent, entityNames } from './history';

interface Props {
  events: readonly LoggedEvent[];
  loaded: boolean;
  mission: MissionDetail;
}

export function MissionHistory({ events, loaded, mission }: Props) {
  const names = useMemo(() => entityNames(mission), [mission]);
  return <EventHistory events={events} loaded={loaded} describe={(event) => describeMissionEvent(event, names)} />;
}
