import { describe, expect, it } from 'vitest';

import { LiveList } from '../../core/liveList';
import { LiveRead } from '../../core/liveRead';
import { RootLive } from '../../core/rootLive';
import { FakeLiveServer, ScriptedHttp, settle } from '../../test/fakes';
import { asset, detail, hop, reviewCount, summary } from '../../test/missions';
import type { MissionSummary } from './api';
import { missionReviewCountSource, missionSource, missionsSource, newestMissionsSource } from './live';

describe('the live mission list', () => {
  function setup(
    latestSeq: number,
    missions: MissionSummary[],
    reread: Record<string, MissionSummary>,
    counts: number[],
  ) {
    const http = new ScriptedHttp({
      LatestSeq: () => ({ latestSeq }),
      Missions: () => ({ missions: { totalCount: missions.length, edges: missions.map((node) => ({ node })) } }),
      MissionSummary: (v) => ({ mission: reread[String(v.id)] ?? null }),
      MissionReviewCount: () => reviewCount((counts.length > 1 ? counts.shift() : counts[0]) ?? 0),
    });
    const server = new FakeLiveServer();
    const failures: unknown[] = [];
    const deps = { http, client: server, onFailure: (e: unknown) => failures.push(e), schedule: (run: () => void) => run() };
    const live = new LiveList(missionsSource, deps);
    const count = new LiveRead(missionReviewCountSource, deps);
    return { http, server, live, count, failures };
  }

  it('reads the position, then the missions (no count), then follows mission events from there', async () => {
    const { http, server, live } = setup(7, [summary('1')], {}, [1]);
    await live.start();
    expect(http.calls.map((c) => c.operation)).toEqual(['LatestSeq', 'Missions']);
    expect(http.calls[1]?.variables.first).toBe(100);
    expect(live.store.get()).toMatchObject({ loaded: true, total: 1 });
    const wire = server.subs.map((s) => JSON.parse(JSON.stringify(s.payload)) as { variables: unknown });
    expect(wire.map((w) => w.variables)).toEqual([{ filter: { rootType: 'mission' }, after: 7 }]);
    const few = new LiveList(newestMissionsSource, { http, client: server, onFailure: () => {} });
    await few.start();
    expect(http.calls.at(-1)?.variables.first).toBe(5);
  });

  it('re-reads each mission an event names, once per burst', async () => {
    const approved = summary('1', { status: 'APPROVED', updatedAt: '2026-01-01T00:01:00Z' });
    const { http, server, live } = setup(0, [summary('1')], { '1': approved, '2': summary('2') }, [1, 0]);
    await live.start();
    http.calls = [];
    server.append({ seq: 1, kind: 'mission_transitioned', rootId: '1' });
    server.append({ seq: 2, kind: 'mission_proposed', rootId: '2' });
    await settle();
    const state = live.store.get();
    expect(state.byId['1']?.status).toBe('APPROVED');
    expect(Object.keys(state.byId).sort()).toEqual(['1', '2']);
    expect(http.calls.filter((c) => c.operation === 'MissionSummary').map((c) => c.variables.id)).toEqual(['1', '2']);
  });

  it('counts the proposals waiting, and counts again after every mission event, saying when', async () => {
    const { http, server, count } = setup(0, [], {}, [1, 0]);
    await count.start();
    const first = count.store.get().value;
    expect(first?.waiting).toBe(1);
    expect(http.calls.map((c) => c.operation)).toEqual(['LatestSeq', 'MissionReviewCount']);
    server.append({ seq: 1, kind: 'mission_transitioned', rootId: '1' });
    await settle();
    const second = count.store.get().value;
    expect(second?.waiting).toBe(0);
    expect(second?.readAt).toBeGreaterThanOrEqual(first?.readAt ?? Infinity);
    expect(second).not.toBe(first);
  });

  it('does not hold a mission back while another is read slowly, and shows both', async () => {
    let release: () => void = () => {};
    const order: string[] = [];
    const http = new ScriptedHttp({
      LatestSeq: () => ({ latestSeq: 0 }),
      Missions: () => ({ missions: { edges: [] } }),
      MissionReviewCount: () => reviewCount(0),
      MissionSummary: (v) => {
        order.push(`start ${String(v.id)}`);
        if (v.id === 'slow') return new Promise((resolve) => (release = () => resolve({ mission: summary('slow') })));
        return { mission: summary(String(v.id)) };
      },
    });
    const server = new FakeLiveServer();
    const live = new LiveList(missionsSource, { http, client: server, onFailure: () => {}, schedule: (run) => run() });
    await live.start();
    server.append({ seq: 1, rootId: 'slow' });
    await settle();
    server.append({ seq: 2, rootId: '2' });
    await settle();
    expect(order).toEqual(['start slow', 'start 2']);
    expect(Object.keys(live.store.get().byId)).toEqual(['2']);
    release();
    await settle();
    expect(Object.keys(live.store.get().byId).sort()).toEqual(['2', 'slow']);
  });

  it('stops following when stopped, and shows a failed start', async () => {
    const { server, live } = setup(0, [], {}, [0]);
    await live.start();
    live.stop();
    expect(server.subs.every((s) => !s.active)).toBe(true);

    const failures: unknown[] = [];
    const broken = new LiveList(missionsSource, {
      http: new ScriptedHttp({}),
      client: new FakeLiveServer(),
      onFailure: (e) => failures.push(e),
    });
    await broken.start();
    expect(failures).toHaveLength(1);
    expect(broken.store.get().error).toMatch(/LatestSeq/);
  });
});

describe('one mission, live', () => {
  it('shows each missionUpdated snapshot with when it arrived, and a missing mission as such', () => {
    const server = new FakeLiveServer('missionUpdated');
    let clock = 100;
    const live = new RootLive(
      missionSource('m'),
      new ScriptedHttp({ History: () => new Promise(() => {}) }),
      server,
      () => {},
      () => clock,
    );
    live.start();
    expect(JSON.parse(JSON.stringify(server.subs[0]?.payload)).variables).toEqual({ id: 'm' });
    const sink = server.subs[0]!.sink;
    sink.next({ data: { missionUpdated: detail([hop('h')], [asset('a', { expiresInSeconds: 30 })]) } });
    expect(live.store.get()).toMatchObject({ receivedAt: 100, missing: false });
    clock = 900;
    sink.next({ data: { missionUpdated: detail([], [asset('a', { status: 'EXPIRED', expiresInSeconds: 0 })]) } });
    expect(live.store.get().receivedAt).toBe(900);
    expect(live.store.get().root?.assets.edges[0]?.node.status).toBe('EXPIRED');
    sink.error({ code: 1011, reason: 'boom' });
    expect(live.store.get()).toMatchObject({ missing: false, error: 'connection closed (1011: boom)' });
    sink.error([{ message: 'mission m not found' }]);
    expect(live.store.get().missing).toBe(true);
  });

  it('reads the history page by page, then follows the mission’s events from its last seq, no repeats', async () => {
    const page = (seqs: number[], more: boolean) => ({
      events: { edges: seqs.map((seq) => ({ node: { seq, rootId: 'm' } })), pageInfo: { hasNextPage: more } },
    });
    const http = new ScriptedHttp({ History: (v) => (v.after === 0 ? page([1, 2], true) : page([3], false)) });
    const server = new FakeLiveServer();
    [1, 2, 3, 4].forEach((seq) => server.log.push({ seq }));
    const live = new RootLive(missionSource('m'), http, server, () => {});
    live.start();
    await settle();
    expect(http.calls.map((c) => c.variables)).toEqual([
      { rootId: 'm', after: 0, first: 100 },
      { rootId: 'm', after: 2, first: 100 },
    ]);
    const events = server.subs[1];
    expect(events?.requested).toEqual([3]);
    expect(JSON.parse(JSON.stringify(events?.payload)).variables.filter).toEqual({ rootType: 'mission', rootId: 'm' });
    server.drop();
    server.log.push({ seq: 5 });
    server.reconnect();
    server.resend(4);
    expect(live.store.get().historyLoaded).toBe(true);
    expect(live.store.get().events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(events?.requested).toEqual([3, 4]);
    live.stop();
    expect(server.subs.every((s) => !s.active)).toBe(true);
  });
});
