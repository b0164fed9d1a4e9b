import { describe, expect, it } from 'vitest';

import { LiveList } from '../../core/liveList';
import { LiveRead } from '../../core/liveRead';
import { RootLive } from '../../core/rootLive';
import { FakeLiveServer, ScriptedHttp, settle } from '../../test/fakes';
import { plan } from '../../test/plans';
import type { PlanSummary } from './api';
import { planReviewCountSource, planSource, plansSource } from './live';

describe('the live plan list', () => {
  function setup(
    latestSeq: number,
    plans: PlanSummary[],
    reread: Record<string, PlanSummary>,
    history: unknown[] = [],
  ) {
    const http = new ScriptedHttp({
      LatestSeq: () => ({ latestSeq }),
      Plans: () => ({ researchPlans: { edges: plans.map((node) => ({ node })) } }),
      PlanSummary: (v) => ({ researchPlan: reread[String(v.id)] ?? null }),
      StallAlertHistory: () => ({ stallAlerts: { edges: history.map((node) => ({ node })) } }),
    });
    const server = new FakeLiveServer();
    const failures: unknown[] = [];
    const live = new LiveList(plansSource, {
      http,
      client: server,
      onFailure: (e) => failures.push(e),
      schedule: (run) => run(),
    });
    return { http, server, live, failures };
  }

  it('reads the position, then the newest few plans and stalls (no inbox), then follows events and stall alerts from that position', async () => {
    const { http, server, live } = setup(12, [plan('1')], {});
    await live.start();
    expect(http.calls.map((c) => c.operation)).toEqual(['LatestSeq', 'Plans', 'StallAlertHistory']);
    expect(http.calls.map((c) => c.variables.first)).toEqual([undefined, 5, 5]);
    expect(live.store.get().loaded).toBe(true);
    const wire = server.subs.map((s) => JSON.parse(JSON.stringify(s.payload)) as { variables: unknown });
    expect(wire.map((w) => w.variables)).toEqual([{ filter: { rootType: 'plan' }, after: 12 }, { after: 12 }]);
  });

  it('shows stalls from the log before the page opened, then adds those that follow, each once', async () => {
    const older = { seq: 5, planId: '1', steps: [], thresholdSeconds: 60, detectedAt: '2026-01-01T00:00:00Z', plan: null };
    const { server, live } = setup(12, [plan('1')], {}, [older]);
    await live.start();
    expect(live.store.get().alerts.map((a) => a.seq)).toEqual([5]);
    const alerts = server.subs[1];
    alerts?.sink.next({ data: { stallAlerts: { ...older, seq: 13 } } });
    await settle();
    expect(live.store.get().alerts.map((a) => a.seq)).toEqual([13, 5]);
  });

  it('re-reads a plan an event names, and adds a plan created after the snapshot', async () => {
    const updated = plan('1', { status: 'EXECUTING', updatedAt: '2026-01-01T00:01:00Z' });
    const created = plan('2');
    const { server, live } = setup(0, [plan('1')], { '1': updated, '2': created });
    await live.start();
    server.append({ seq: 1, kind: 'step_transitioned', entityType: 'step', rootId: '1' });
    server.append({ seq: 2, kind: 'plan_modified', entityType: 'plan', rootId: '2' });
    await settle();
    const state = live.store.get();
    expect(state.byId['1']?.status).toBe('EXECUTING');
    expect(state.order).toEqual(['2', '1']);
  });

  it('stops following when stopped', async () => {
    const { server, live } = setup(0, [], {});
    await live.start();
    live.stop();
    expect(server.subs.every((s) => !s.active)).toBe(true);
  });

  it('hands a failed start to the shell and shows the error', async () => {
    const http = new ScriptedHttp({});
    const failures: unknown[] = [];
    const live = new LiveList(plansSource, { http, client: new FakeLiveServer(), onFailure: (e) => failures.push(e) });
    await live.start();
    expect(failures).toHaveLength(1);
    expect(live.store.get().error).toMatch(/LatestSeq/);
  });
});

describe('the count of steps awaiting review, live', () => {
  function setup(inbox: () => unknown) {
    const http = new ScriptedHttp({
      LatestSeq: () => ({ latestSeq: 0 }),
      PlanReviewCount: async () => ({ reviewInbox: { totalCount: ((await inbox()) as unknown[]).length } }),
    });
    const server = new FakeLiveServer();
    const deps = { http, client: server, onFailure: () => {}, schedule: (run: () => void) => run() };
    return { http, server, count: new LiveRead(planReviewCountSource, deps) };
  }

  it('counts without reading a list, and follows only plan events', async () => {
    let waiting = 3;
    const { http, server, count } = setup(() => Array.from({ length: waiting }));
    await count.start();
    expect(count.store.get().value).toBe(3);
    expect(http.calls.map((c) => c.operation)).toEqual(['LatestSeq', 'PlanReviewCount']);
    const wire = server.subs.map((s) => JSON.parse(JSON.stringify(s.payload)) as { variables: unknown });
    expect(wire.map((w) => w.variables)).toEqual([{ filter: { rootType: 'plan' }, after: 0 }]);
    waiting = 2;
    server.append({ seq: 1, kind: 'user_reviewed', entityType: 'step', rootId: 'x' });
    await settle();
    expect(count.store.get().value).toBe(2);
    count.stop();
    expect(server.subs.every((s) => !s.active)).toBe(true);
  });
});

describe('one plan, live', () => {
  it('reads the whole history page by page, then follows from its last seq without repeats', async () => {
    const page = (seqs: number[], more: boolean) => ({
      events: { edges: seqs.map((seq) => ({ node: { seq, rootId: 'p' } })), pageInfo: { hasNextPage: more } },
    });
    const http = new ScriptedHttp({
      History: (v) => (v.after === 0 ? page([1, 2], true) : page([3], false)),
    });
    const server = new FakeLiveServer();
    [1, 2, 3, 4].forEach((seq) => server.log.push({ seq }));
    const detail = new RootLive(planSource('p'), http, server, () => {});
    detail.start();
    await settle();

    expect(http.calls.map((c) => c.variables.after)).toEqual([0, 2]);
    const eventsSub = server.subs[1];
    expect(eventsSub?.requested).toEqual([3]);
    server.drop();
    server.log.push({ seq: 5 });
    server.reconnect();
    server.resend(4);
    const view = detail.store.get();
    expect(view.historyLoaded).toBe(true);
    expect(view.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(eventsSub?.requested).toEqual([3, 4]);
  });

  it('shows the snapshot researchPlanUpdated sends, and says so when the plan does not exist', () => {
    const server = new FakeLiveServer('researchPlanUpdated');
    const detail = new RootLive(planSource('p'), new ScriptedHttp({ History: () => new Promise(() => {}) }), server, () => {});
    detail.start();
    const sink = server.subs[0]!.sink;
    sink.next({ data: { researchPlanUpdated: { id: 'p', status: 'EXECUTING' } } });
    expect(detail.store.get().root?.status).toBe('EXECUTING');
    sink.next({ errors: [{ message: 'plan p not found' }] });
    expect(detail.store.get().missing).toBe(true);
  });
});

describe('one plan, live, when it does not exist', () => {
  it('treats a GraphQL error from researchPlanUpdated as a missing plan, a socket error as an error', () => {
    const server = new FakeLiveServer('researchPlanUpdated');
    const history = new ScriptedHttp({ History: () => new Promise(() => {}) });
    const detail = new RootLive(planSource('nope'), history, server, () => {});
    detail.start();
    server.subs[0]!.sink.error({ code: 1011, reason: 'boom' });
    expect(detail.store.get()).toMatchObject({ missing: false, error: 'connection closed (1011: boom)' });
    server.subs[0]!.sink.error([{ message: 'plan nope not found' }]);
    expect(detail.store.get().missing).toBe(true);
  });
});
