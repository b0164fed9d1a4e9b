/**
 * The plan list and stall alerts, kept live for as long as the dashboard is open.
 *
 * Start: read `latestSeq`, then the plan list (a snapshot at least that new), then follow
 * `events(after: latestSeq)` and `stallAlerts(after: latestSeq)`. An event names the plan it changed;
 * that plan is re-read (batched), so counts and progress always come from the server. Events already
 * reflected in the snapshot only cause a harmless re-read. Both streams resume from their last seq
 * after a reconnect.
 */
import { Batch, type Schedule } from '../../core/batch';
import { changedRootIds, EVENT_STREAM } from '../../core/events';
import type { GraphQLHttp } from '../../core/http';
import { subscribeFromSeq, type Resumable, type SubscriptionClient } from '../../core/resumable';
import { Store } from '../../core/store';
import {
  LATEST_SEQ,
  PLAN_SUMMARY,
  PLANS,
  STALL_ALERTS,
  type PlanEvent,
  type PlanSummary,
  type StallAlert,
} from './api';
import { addAlert, initialPlans, touchesReviews, upsertPlans, type PlansState } from './store';

export const PLAN_LIST_SIZE = 100;

export interface PlansLiveDeps {
  http: GraphQLHttp;
  client: SubscriptionClient;
  onFailure(error: unknown): void;
  /** How re-reads are batched; tests pass a synchronous one. */
  schedule?: Schedule;
}

export class PlansLive {
  readonly store = new Store<PlansState>(initialPlans);
  private streams: Resumable[] = [];
  private rereads: Batch<string>;
  private stopped = false;

  constructor(private deps: PlansLiveDeps) {
    this.rereads = new Batch((ids) => void this.reread(ids), deps.schedule);
  }

  async start(): Promise<void> {
    const { http, client } = this.deps;
    try {
      const { latestSeq } = await http.request<{ latestSeq: number }>(LATEST_SEQ);
      const list = await http.request<{ researchPlans: { edges: { node: PlanSummary }[] } }>(PLANS, {
        first: PLAN_LIST_SIZE,
      });
      if (this.stopped) return;
      this.store.update((s) => ({ ...upsertPlans(s, list.researchPlans.edges.map((e) => e.node)), loaded: true }));
      this.streams.push(
        subscribeFromSeq<PlanEvent>(client, {
          query: EVENT_STREAM,
          field: 'events',
          variables: { filter: { rootType: 'plan' } },
          after: latestSeq,
          onItem: (event) => this.onEvent(event),
          onError: (message) => this.fail(message),
        }),
        subscribeFromSeq<StallAlert>(client, {
          query: STALL_ALERTS,
          field: 'stallAlerts',
          after: latestSeq,
          onItem: (alert) => this.store.update((s) => addAlert(s, alert)),
          onError: (message) => this.fail(message),
        }),
      );
    } catch (error) {
      this.deps.onFailure(error);
      this.fail(error instanceof Error ? error.message : String(error));
    }
  }

  stop(): void {
    this.stopped = true;
    for (const stream of this.streams) stream.stop();
    this.streams = [];
  }

  private fail(message: string): void {
    this.store.update((s) => ({ ...s, error: message }));
  }

  private onEvent(event: PlanEvent): void {
    if (touchesReviews(event)) this.store.update((s) => ({ ...s, reviewVersion: s.reviewVersion + 1 }));
    for (const id of changedRootIds([event])) this.rereads.add(id);
  }

  /** Re-read every plan named since the last read, one request each, concurrently. */
  private async reread(ids: string[]): Promise<void> {
    try {
      const plans = await Promise.all(
        ids.map((id) =>
          this.deps.http.request<{ researchPlan: PlanSummary | null }>(PLAN_SUMMARY, { id }).then((r) => r.researchPlan),
        ),
      );
      if (this.stopped) return;
      this.store.update((s) => ({ ...upsertPlans(s, plans.filter((p): p is PlanSummary => p !== null)), error: null }));
    } catch (error) {
      this.deps.onFailure(error);
    }
  }
}
