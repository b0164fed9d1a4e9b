/**
 * The mission list and what waits for a person, kept live for as long as the dashboard is open.
 *
 * Start: read `latestSeq`, then the missions and `missionReviewInbox` (snapshots at least that new),
 * then follow `events(after: latestSeq, filter: {rootType: "mission"})`. Every event names its mission;
 * the missions named in a burst (core/batch.ts) are re-read, and the inbox with them, one read at a time
 * so an older answer never lands after a newer one. The stream resumes from its last seq after a reconnect.
 */
import { Batch, type Schedule } from '../../core/batch';
import { EVENT_STREAM, type LoggedEvent } from '../../core/events';
import type { GraphQLHttp } from '../../core/http';
import { subscribeFromSeq, type Resumable, type SubscriptionClient } from '../../core/resumable';
import { Store } from '../../core/store';
import { MISSION_INBOX, MISSION_SUMMARY, MISSIONS, type MissionInbox, type MissionSummary } from './api';
import { initialMissions, upsertMissions, type MissionsState } from './store';

export const MISSION_LIST_SIZE = 100;
export const INBOX_SIZE = 50;

const LATEST_SEQ = 'query MissionsLatestSeq { latestSeq }';

export interface MissionsLiveDeps {
  http: GraphQLHttp;
  client: SubscriptionClient;
  onFailure(error: unknown): void;
  /** How re-reads are delayed to gather a burst of events; tests pass a synchronous one. */
  schedule?: Schedule;
  now?: () => number;
}

export class MissionsLive {
  readonly store = new Store<MissionsState>(initialMissions);
  private stream: Resumable | null = null;
  private rereads: Batch<string>;
  /** Missions named but not read yet; the read in progress (each waits for the one before). */
  private pending = new Set<string>();
  private reading: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private deps: MissionsLiveDeps) {
    this.rereads = new Batch((ids) => this.queue(ids), deps.schedule);
  }

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
      this.stream = subscribeFromSeq<LoggedEvent>(client, {
        query: EVENT_STREAM,
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
    this.rereads.add(missionId);
  }

  /** Queue a re-read behind the one running: reads never overlap, so the newest answer lands last. */
  private queue(ids: readonly string[]): void {
    for (const id of ids) this.pending.add(id);
    this.reading = this.reading.then(() => this.readPending());
  }

  private async readPending(): Promise<void> {
    if (this.stopped || !this.pending.size) return;
    const ids = [...this.pending];
    this.pending.clear();
    await this.reread(ids);
  }

  /** Re-read the named missions and the inbox; a failure is reported, and the next event reads again. */
  private async reread(ids: string[]): Promise<void> {
    const { http } = this.deps;
    try {
      const [missions, inbox] = await Promise.all([
        Promise.all(
          ids.map((id) =>
            http.request<{ mission: MissionSummary | null }>(MISSION_SUMMARY, { id }).then((r) => r.mission),
          ),
        ),
        this.readInbox(),
      ]);
      if (this.stopped) return;
      this.store.update((s) => {
        const next = upsertMissions(
          s,
          missions.filter((m): m is MissionSummary => m !== null),
        );
        return { ...next, inbox, inboxReceivedAt: this.now(), error: null };
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
