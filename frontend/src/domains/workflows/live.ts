/**
 * The workflow list and the steps waiting for a reviewer, kept live for as long as the dashboard is open.
 *
 * Start: read `latestSeq`, then the list and the reviewer's queue (snapshots at least that new), then
 * follow `events(after: latestSeq, filter: {rootType: "workflow"})`. An event names its workflow, which
 * is re-read (batched) so counts and outcomes always come from the server; events that can open or close
 * a gate re-read the queue too. An answer that a later request's answer overtook is dropped, so the
 * newest read always wins. The stream resumes from its last seq after a reconnect.
 */
import { Batch, type Schedule } from '../../core/batch';
import { EVENT_STREAM, type LoggedEvent } from '../../core/events';
import type { GraphQLHttp } from '../../core/http';
import { subscribeFromSeq, type Resumable, type SubscriptionClient } from '../../core/resumable';
import { Store } from '../../core/store';
import { GATES, LIST_SIZE, WORKFLOW_SUMMARY, WORKFLOWS, type GateRequest, type WorkflowSummary } from './api';
import { initialWorkflows, touchesGates, upsertWorkflows, type WorkflowsState } from './store';

const LATEST_SEQ = 'query WorkflowsLatestSeq { latestSeq }';
/** The key under which the reviewer's queue is batched next to workflow ids. */
const GATE_QUEUE = Symbol('gates');

export interface WorkflowsLiveDeps {
  http: GraphQLHttp;
  client: SubscriptionClient;
  onFailure(error: unknown): void;
  /** How re-reads are batched; tests pass a synchronous one. */
  schedule?: Schedule;
}

export class WorkflowsLive {
  readonly store = new Store<WorkflowsState>(initialWorkflows);
  private stream: Resumable | null = null;
  private rereads: Batch<string | typeof GATE_QUEUE>;
  private stopped = false;
  /** The newest request for each workflow (and for the queue): older answers are dropped. */
  private tickets = new Map<string | typeof GATE_QUEUE, number>();
  private issued = 0;

  constructor(private deps: WorkflowsLiveDeps) {
    this.rereads = new Batch((keys) => void this.reread(keys), deps.schedule);
  }

  async start(): Promise<void> {
    const { http, client } = this.deps;
    try {
      const { latestSeq } = await http.request<{ latestSeq: number }>(LATEST_SEQ);
      const [list] = await Promise.all([
        http.request<{ workflows: { totalCount: number; edges: { node: WorkflowSummary }[] } }>(WORKFLOWS, {
          first: LIST_SIZE,
        }),
        this.readGates(),
      ]);
      if (this.stopped) return;
      this.store.update((s) => ({
        ...upsertWorkflows(s, list.workflows.edges.map((e) => e.node)),
        total: list.workflows.totalCount,
        loaded: true,
      }));
      this.stream = subscribeFromSeq<LoggedEvent>(client, {
        query: EVENT_STREAM,
        field: 'events',
        variables: { filter: { rootType: 'workflow' } },
        after: latestSeq,
        onItem: (event) => this.onEvent(event),
        onError: (message) => this.store.update((s) => ({ ...s, error: message })),
      });
    } catch (error) {
      this.fail(error);
    }
  }

  stop(): void {
    this.stopped = true;
    this.stream?.stop();
    this.stream = null;
  }

  /** Read the reviewer's queue again now (after deciding, the decided step leaves it). */
  refreshGates(): void {
    this.rereads.add(GATE_QUEUE);
  }

  private onEvent(event: LoggedEvent): void {
    this.rereads.add(event.rootId);
    if (touchesGates(event)) this.rereads.add(GATE_QUEUE);
  }

  private ticket(key: string | typeof GATE_QUEUE): () => boolean {
    const mine = ++this.issued;
    this.tickets.set(key, mine);
    return () => !this.stopped && this.tickets.get(key) === mine;
  }

  private async readGates(): Promise<void> {
    const current = this.ticket(GATE_QUEUE);
    const result = await this.deps.http.request<{ workflowStepsAwaitingReview: { edges: { node: GateRequest }[] } }>(
      GATES,
      { first: LIST_SIZE },
    );
    if (current()) this.store.update((s) => ({ ...s, gates: result.workflowStepsAwaitingReview.edges.map((e) => e.node) }));
  }

  private async readWorkflow(id: string): Promise<WorkflowSummary | null> {
    const current = this.ticket(id);
    const { workflow } = await this.deps.http.request<{ workflow: WorkflowSummary | null }>(WORKFLOW_SUMMARY, { id });
    return workflow && current() ? workflow : null;
  }

  /** Re-read every workflow named since the last read (one request each, concurrently) and maybe the queue. */
  private async reread(keys: (string | typeof GATE_QUEUE)[]): Promise<void> {
    try {
      const ids = keys.filter((k): k is string => k !== GATE_QUEUE);
      const [workflows] = await Promise.all([
        Promise.all(ids.map((id) => this.readWorkflow(id))),
        keys.includes(GATE_QUEUE) ? this.readGates() : null,
      ]);
      if (this.stopped) return;
      const fresh = workflows.filter((w): w is WorkflowSummary => w !== null);
      this.store.update((s) => {
        const next = upsertWorkflows(s, fresh);
        return next.error ? { ...next, error: null } : next;
      });
    } catch (error) {
      this.deps.onFailure(error);
    }
  }

  private fail(error: unknown): void {
    this.deps.onFailure(error);
    this.store.update((s) => ({ ...s, error: error instanceof Error ? error.message : String(error) }));
  }
}
