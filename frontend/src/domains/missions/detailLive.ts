/**
 * One mission, live: `missionUpdated(id)` sends the whole mission (hops, tool steps, assets) now and
 * after every change, including a fresh one after a reconnect; the event history is read from the log
 * and then followed with `events(after: last, filter: {rootType: "mission", rootId})`, resuming from
 * the last seq it showed.
 */
import type { GraphQLHttp } from '../../core/http';
import { describeSocketError, subscribeFromSeq, type SubscriptionClient } from '../../core/resumable';
import { mergeBySeq } from '../../core/seqCursor';
import { Store } from '../../core/store';
import { MISSION_UPDATED, type MissionDetail } from './api';
import type { MissionEvent } from './history';
import { MISSION_EVENTS } from './live';

export interface MissionView {
  mission: MissionDetail | null;
  /** When (this browser's clock, ms) the snapshot arrived: asset countdowns start from it. */
  receivedAt: number;
  missing: boolean;
  events: readonly MissionEvent[];
  historyLoaded: boolean;
  error: string | null;
}

export const MISSION_HISTORY = `query MissionHistory($rootId: ID!, $after: Int!, $first: Int!) {
  events(rootId: $rootId, after: $after, first: $first) {
    edges { node { seq kind entityType entityId rootId fromState toState actor data createdAt } }
    pageInfo { hasNextPage }
  }
}`;

const PAGE = 100;

interface HistoryPage {
  events: { edges: { node: MissionEvent }[]; pageInfo: { hasNextPage: boolean } };
}

export class MissionDetailLive {
  readonly store = new Store<MissionView>({
    mission: null,
    receivedAt: 0,
    missing: false,
    events: [],
    historyLoaded: false,
    error: null,
  });
  private stops: (() => void)[] = [];
  private stopped = false;

  constructor(
    private missionId: string,
    private http: GraphQLHttp,
    private client: SubscriptionClient,
    private onFailure: (error: unknown) => void,
    private now: () => number = Date.now,
  ) {}

  start(): void {
    const stopSnapshots = this.client.subscribe(
      { query: MISSION_UPDATED, variables: { id: this.missionId } },
      {
        next: (result) => {
          const mission = (result.data as { missionUpdated?: MissionDetail } | undefined)?.missionUpdated;
          if (mission) this.store.update((v) => ({ ...v, mission, receivedAt: this.now(), error: null }));
          else if (result.errors?.length) this.store.update((v) => ({ ...v, missing: true }));
        },
        // A GraphQL error (unknown or malformed id, another tenant's mission) means: no such mission.
        error: (error) =>
          this.store.update((v) =>
            Array.isArray(error) ? { ...v, missing: true } : { ...v, error: describeSocketError(error) },
          ),
        complete: () => {},
      },
    );
    this.stops.push(stopSnapshots);
    void this.follow();
  }

  stop(): void {
    this.stopped = true;
    for (const stop of this.stops.splice(0)) stop();
  }

  /** The history so far, page by page, then the live stream from the last seq read. */
  private async follow(): Promise<void> {
    let last = 0;
    try {
      let more = true;
      while (more) {
        const page = await this.http.request<HistoryPage>(MISSION_HISTORY, {
          rootId: this.missionId,
          after: last,
          first: PAGE,
        });
        if (this.stopped) return;
        const events = page.events.edges.map((e) => e.node);
        this.merge(events);
        last = events.at(-1)?.seq ?? last;
        more = page.events.pageInfo.hasNextPage && events.length > 0;
      }
    } catch (error) {
      this.onFailure(error);
      this.store.update((v) => ({ ...v, error: error instanceof Error ? error.message : String(error) }));
      return;
    }
    this.store.update((v) => ({ ...v, historyLoaded: true }));
    const stream = subscribeFromSeq<MissionEvent>(this.client, {
      query: MISSION_EVENTS,
      field: 'events',
      variables: { filter: { rootType: 'mission', rootId: this.missionId } },
      after: last,
      onItem: (event) => this.merge([event]),
      onError: (message) => this.store.update((v) => ({ ...v, error: message })),
    });
    this.stops.push(() => stream.stop());
  }

  private merge(events: readonly MissionEvent[]): void {
    this.store.update((v) => {
      const merged = mergeBySeq(v.events, events);
      return merged === v.events ? v : { ...v, events: merged };
    });
  }
}
