import { describe, expect, it } from 'vitest';

import { LiveList } from '../../core/liveList';
import { LiveRead } from '../../core/liveRead';
import { FakeLiveServer, ScriptedHttp, settle } from '../../test/fakes';
import { gate, summary } from '../../test/workflows';
import type { GateRequest, WorkflowSummary } from './api';
import { gateCountSource, newestWorkflowsSource, workflowsSource } from './live';

function setup(latestSeq: number, list: WorkflowSummary[], reread: Record<string, WorkflowSummary>, gates: GateRequest[][]) {
  let gateReads = 0;
  const http = new ScriptedHttp({
    LatestSeq: () => ({ latestSeq }),
    Workflows: () => ({ workflows: { totalCount: list.length, edges: list.map((node) => ({ node })) } }),
    WorkflowSummary: (v) => ({ workflow: reread[String(v.id)] ?? null }),
    WorkflowGates: () => {
      const page = gates[Math.min(gateReads++, gates.length - 1)] ?? [];
      return { workflowStepsAwaitingReview: { totalCount: page.length, edges: page.map((node) => ({ node })) } };
    },
    WorkflowGateCount: () => ({ workflowStepsAwaitingReview: { totalCount: (gates[Math.min(gateReads++, gates.length - 1)] ?? []).length } }),
  });
  const server = new FakeLiveServer();
  const failures: unknown[] = [];
  const live = new LiveList(workflowsSource, {
    http,
    client: server,
    onFailure: (e) => failures.push(e),
    schedule: (run) => run(),
  });
  return { http, server, live, failures };
}

describe('the live workflow list', () => {
  it('reads the position, then the list (no gates), then follows workflow events from that position', async () => {
    const { http, server, live } = setup(7, [summary('1')], {}, [[gate('g1')]]);
    await live.start();
    expect(http.calls.map((c) => c.operation)).toEqual(['LatestSeq', 'Workflows']);
    const state = live.store.get();
    expect(state).toMatchObject({ loaded: true, total: 1 });
    const wire = JSON.parse(JSON.stringify(server.subs[0]?.payload)) as { variables: unknown };
    expect(wire.variables).toEqual({ filter: { rootType: 'workflow' }, after: 7 });
  });

  it('re-reads the workflow an event names (a new one appears)', async () => {
    const created = summary('2', { status: 'IDLE' });
    const moved = summary('1', { status: 'BLOCKED' });
    const { server, live } = setup(0, [summary('1')], { '1': moved, '2': created }, [[]]);
    await live.start();
    server.append({ seq: 1, kind: 'workflow_created', entityType: 'workflow', rootId: '2' });
    server.append({ seq: 2, kind: 'workflow_approval_requested', entityType: 'workflow_step', rootId: '1' });
    await settle();
    const state = live.store.get();
    expect(state.order).toEqual(['2', '1']);
    expect(state.byId['1']?.status).toBe('BLOCKED');
    expect(state.total).toBe(2);
  });

  it('holds only the newest few for the overview', async () => {
    const { http, server, live } = setup(0, [], {}, [[]]);
    const few = new LiveList(newestWorkflowsSource, { http, client: server, onFailure: () => {}, schedule: (run) => run() });
    await few.start();
    expect(http.calls.find((c) => c.operation === 'Workflows')?.variables.first).toBe(5);
    void live;
  });

  it('counts the gates without reading a list, again only when a gate may have changed', async () => {
    const { http, server } = setup(0, [], {}, [[]]);
    const deps = { http, client: server, onFailure: () => {}, schedule: (run: () => void) => run() };
    const count = new LiveRead(gateCountSource, deps);
    await count.start();
    const reads = () => http.calls.filter((c) => c.operation === 'WorkflowGateCount').length;
    expect(reads()).toBe(1);
    server.append({ seq: 1, kind: 'workflow_created', entityType: 'workflow', rootId: '2' });
    await settle();
    expect(reads()).toBe(1);
    server.append({ seq: 2, kind: 'workflow_approval_requested', entityType: 'workflow_step', rootId: '1' });
    await settle();
    expect(reads()).toBe(2);
    expect(http.calls.filter((c) => c.operation === 'WorkflowGates')).toHaveLength(0);
  });

  it('keeps the answer to the newest read when an older one arrives later', async () => {
    const answers: ((value: unknown) => void)[] = [];
    const http = new ScriptedHttp({
      LatestSeq: () => ({ latestSeq: 0 }),
      Workflows: () => ({ workflows: { totalCount: 0, edges: [] } }),
      WorkflowSummary: () => new Promise((resolve) => answers.push(resolve)),
    });
    const server = new FakeLiveServer();
    const live = new LiveList(workflowsSource, { http, client: server, onFailure: () => {}, schedule: (run) => run() });
    await live.start();
    server.append({ seq: 1, kind: 'workflow_step_claimed', entityType: 'workflow_step', rootId: '1' });
    server.append({ seq: 2, kind: 'workflow_step_transitioned', entityType: 'workflow_step', rootId: '1' });
    expect(answers).toHaveLength(2);
    answers[1]?.({ workflow: summary('1', { status: 'COMPLETED' }) });
    await settle();
    answers[0]?.({ workflow: summary('1', { status: 'EXECUTING' }) });
    await settle();
    expect(live.store.get().byId['1']?.status).toBe('COMPLETED');
  });

  it('hands a failed start to the shell and shows the error; stops following when stopped', async () => {
    const failing = new LiveList(workflowsSource, {
      http: new ScriptedHttp({}),
      client: new FakeLiveServer(),
      onFailure: () => {},
    });
    await failing.start();
    expect(failing.store.get().error).toMatch(/LatestSeq/);

    const { server, live } = setup(0, [], {}, [[]]);
    await live.start();
    live.stop();
    expect(server.subs.every((s) => !s.active)).toBe(true);
  });
});
