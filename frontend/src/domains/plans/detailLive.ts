/**
 * One plan, live: its snapshot from `researchPlanUpdated(id)` (a fresh one after every change and after
 * every reconnect) and its whole event history, read page by page and then followed with
 * `events(after: last, filter: {rootId})`, resuming from the last seq after a reconnect.
 */
import type { GraphQLHttp } from '../../core/http';
import { describeSocketError, subscribeFromSeq, type Resumable, type SubscriptionClient } from '../../core/resumable';
import { mergeBySeq } from '../../core/seqCursor';
import { Store } from '../../core/store';
import { EVENT_HISTORY, PLAN_EVENTS, PLAN_UPDATED, type PlanDetail, type PlanEvent } from './api';

export interface PlanView {
  plan: PlanDetail | null;
  missing: boolean;
  events: readonly PlanEvent[];
  historyLoaded: boolean;
  error: string | null;
}

export const HISTORY_PAGE = 100;

export class PlanDetailLive {
  readonly store = new Store<PlanView>({ plan: null, missing: false, events: [], historyLoaded: false, error: null });
  private stops: (() => void)[] = [];
  private stopped = false;

  constructor(
    private planId: string,
    private http: GraphQLHttp,
    private client: SubscriptionClient,
    private onFailure: (error: unknown) => void,
  ) {}

  start(): void {
    this.stops.push(
      this.client.subscribe(
        { query: PLAN_UPDATED, variables: { id: this.planId } },
        {
          next: (result) => {
            const plan = (result.data as { researchPlanUpdated?: PlanDetail } | undefined)?.researchPlanUpdated;
            if (plan) this.store.update((v) => ({ ...v, plan, error: null }));
            else if (result.errors?.length) this.store.update((v) => ({ ...v, missing: true }));
          },
          // GraphQL errors (an unknown or malformed id) mean there is no such plan for this tenant.
          error: (error) =>
            this.store.update((v) =>
              Array.isArray(error) ? { ...v, missing: true } : { ...v, error: describeSocketError(error) },
            ),
          complete: () => {},
        },
      ),
    );
    void this.loadHistory();
  }

  stop(): void {
    this.stopped = true;
    for (const stop of this.stops) stop();
    this.stops = [];
  }

  private async loadHistory(): Promise<void> {
    let after = 0;
    try {
      for (;;) {
        const page = await this.http.request<{
          events: { edges: { node: PlanEvent }[]; pageInfo: { hasNextPage: boolean } };
        }>(EVENT_HISTORY, { rootId: this.planId, after, first: HISTORY_PAGE });
        const events = page.events.edges.map((e) => e.node);
        if (this.stopped) return;
        this.add(events);
        after = events.at(-1)?.seq ?? after;
        if (!page.events.pageInfo.hasNextPage) break;
      }
    } catch (error) {
      this.onFailure(error);
      this.store.update((v) => ({ ...v, error: error instanceof Error ? error.message : String(error) }));
      return;
    }
    if (this.stopped) return;
    this.store.update((v) => ({ ...v, historyLoaded: true }));
    const stream: Resumable = subscribeFromSeq<PlanEvent>(this.client, {
      query: PLAN_EVENTS,
      field: 'events',
      variables: { filter: { rootId: this.planId } },
      after,
      onItem: (event) => this.add([event]),
      onError: (message) => this.store.update((v) => ({ ...v, error: message })),
    });
    this.stops.push(() => stream.stop());
  }

  private add(events: readonly PlanEvent[]): void {
    this.store.update((v) => {
      const merged = mergeBySeq(v.events, events);
      return merged === v.events ? v : { ...v, events: merged };
    });
  }
}
