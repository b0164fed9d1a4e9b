/**
 * One mission, live (see core/rootLive.ts): `missionUpdated(id)` sends the whole mission (hops, tool
 * steps, assets) now and after every change; the history follows the mission's events. `receivedAt`
 * tells when each snapshot arrived, so asset countdowns start from the server's `expiresInSeconds`.
 */
import type { GraphQLHttp } from '../../core/http';
import type { SubscriptionClient } from '../../core/resumable';
import { RootLive } from '../../core/rootLive';
import { MISSION_UPDATED, type MissionDetail } from './api';

export class MissionDetailLive extends RootLive<MissionDetail> {
  constructor(
    missionId: string,
    http: GraphQLHttp,
    client: SubscriptionClient,
    onFailure: (error: unknown) => void,
    now?: () => number,
  ) {
    const filter = { rootType: 'mission', rootId: missionId };
    super({ id: missionId, query: MISSION_UPDATED, field: 'missionUpdated', filter }, http, client, onFailure, now);
  }
}
