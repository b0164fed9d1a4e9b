/**
 * The mission list and what waits for a person, kept live for as long as the dashboard is open.
 *
 * Start: read `latestSeq`, then the missions and `missionReviewInbox` (snapshots at least that new),
 * then follow `events(after: latestSeq, filter: {rootType: "mission"})`. Every event names its mission;
 * the missions named since the last read are re-read, and the inbox with them, one read at a time so
 * an older answer never lands after a newer one. The stream resumes from its last seq after a reconnect.
 */
import type { GraphQLHttp } from '../../core/http';
import { subscribeFromSeq, type Resumable, type SubscriptionClient } from '../../core/resumable';
import { Store } from '../../core/store';
import { MISSION_INBOX, MISSION_SUMMARY, MISSIONS, type MissionInbox, type MissionSummary } from './api';
import type { MissionEvent } from './history';
import { initialMissions, upsertMissions, type MissionsState } from './store';

export const MISSION_LIST_SIZE = 100;
export const INBOX_SIZE = 50;

const LATEST_SEQ = 'query MissionsLatestSeq { latestSeq }';
export const MISSION_EVENTS = `subscription MissionEvents($after: Int, $filter: EventFilter) {
  events(after: $after, filter: $filter) {
    seq kind entityType entityId rootId fromState toState actor data createdAt
  }
}`;

export interface MissionsLiveDeps {
  http: GraphQLHttp;
  client: SubscriptionClient;
  onFailure(error: unknown): void;
  /** How re-reads are delayed to gather a burst of events; tests pass a synchronous one. */
  schedule?: (run: () => void) => void;
  now?: () => number;
}

export class MissionsLive {
  readonly store = new Store<MissionsState>(initialMissions);
  private stream: Resumable | null = null;
  private named = new Set<string>();
  private inboxStale = false;
  private reading: Promise<void> | null = null;
  private queued = false;
  private stopped = false;

  constructor(private deps: MissionsLiveDeps) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  async start(): Promise<void> {
    const { http, client } = this.deps;
    try {
      const { latestSeq } = await http.request<{ latestSeq: number }>(LATEST_SEQ);
      const [list, inbox] = await Promise.all([
        http.request<{ missions: { edges: { node: MissionSummary }[] } }>(MISSIONS, { first: MISSION_LIST_SIZE }),
        this.readInbox(),
      ]);
      if (this.stopped) return;
      this.store.update((s) => ({
        ...upsertMissions(
          s,
          list.missions.edges.map((e) => e.node),
        ),
        inbox,
        inboxReceivedAt: this.now(),
        loaded: true,
      }));
      this.stream = subscribeFromSeq<MissionEvent>(client, {
        query: MISSION_EVENTS,
        field: 'events',
        variables: { filter: { rootType: 'mission' } },
        after: latestSeq,
        onItem: (event) => this.changed(event.rootId),
        onError: (message) => this.store.update((s) => ({ ...s, error: message })),
      });
    } catch (error) {
      this.deps.onFailure(error);
      this.store.update((s) => ({ ...s, error: error instanceof Error ? error.message : String(error) }));
    }
  }

  stop(): void {
    this.stopped = true;
    this.stream?.stop();
    this.stream = null;
  }

  /** A mission changed (an event, or a decision taken on this page): re-read it and the inbox soon. */
  changed(missionId: string): void {
    this.named.add(missionId);
    this.inboxStale = true;
    if (this.queued) return;
    this.queued = true;
    const schedule = this.deps.schedule ?? ((run) => setTimeout(run, 50));
    schedule(() => {
      this.queued = false;
      void this.drain();
    });
  }

  /** Re-read until nothing is left to read; a read already running is waited for, never overtaken. */
  private async drain(): Promise<void> {
    while (this.reading) await this.reading;
    if (this.stopped || (!this.named.size && !this.inboxStale)) return;
    const ids = [...this.named];
    const inboxToo = this.inboxStale;
    this.named.clear();
    this.inboxStale = false;
    this.reading = this.reread(ids, inboxToo);
    try {
      await this.reading;
    } finally {
      this.reading = null;
    }
    if (this.named.size || this.inboxStale) await this.drain();
  }

  private async reread(ids: string[], inboxToo: boolean): Promise<void> {
    const { http } = this.deps;
    try {
      const [missions, inbox] = await Promise.all([
        Promise.all(
          ids.map((id) =>
            http.request<{ mission: MissionSummary | null }>(MISSION_SUMMARY, { id }).then((r) => r.mission),
          ),
        ),
        inboxToo ? this.readInbox() : Promise.resolve(null),
      ]);
      if (this.stopped) return;
      this.store.update((s) => {
        const next = upsertMissions(
          s,
          missions.filter((m): m is MissionSummary => m !== null),
        );
        return inbox ? { ...next, inbox, inboxReceivedAt: this.now(), error: null } : { ...next, error: null };
      });
    } catch (error) {
      this.deps.onFailure(error);
    }
  }

  private async readInbox(): Promise<MissionInbox> {
    const result = await this.deps.http.request<{ missionReviewInbox: MissionInbox }>(MISSION_INBOX, {
      first: INBOX_SIZE,
    });
    return result.missionReviewInbox;
  }
}
