import { describe, expect, it } from 'vitest';

import { FakeLiveServer, ScriptedHttp, settle } from '../test/fakes';
import { initialList, LiveList, rootsInOrder, upsertRoots, type ListSource } from './liveList';

interface Thing {
  id: string;
  createdAt: string;
  version: string;
}

const thing = (id: string, version = 'v1'): Thing => ({ id, createdAt: `2026-01-01T00:00:0${id}Z`, version });

/** A promise the test settles when it wants: answers that land in any order. */
function deferred<T>() {
  let resolve: (value: T) => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

interface Extra {
  queue: string | null;
}

/** A source whose list, root and side reads are answered by the test, one pending answer per read. */
function setup(limit?: number) {
  const lists: ReturnType<typeof deferred<{ totalCount: number; edges: { node: Thing }[] }>>[] = [];
  const roots: { id: string; answer: ReturnType<typeof deferred<Thing | null>> }[] = [];
  const queues: ReturnType<typeof deferred<string>>[] = [];
  const source: ListSource<Thing, Extra> = {
    rootType: 'thing',
    limit,
    readList: () => {
      const answer = deferred<{ totalCount: number; edges: { node: Thing }[] }>();
      lists.push(answer);
      return answer.promise;
    },
    readRoot: (_http, id) => {
      const answer = deferred<Thing | null>();
      roots.push({ id, answer });
      return answer.promise;
    },
    initial: { queue: null },
    created: (event) => event.kind === 'created',
    sides: {
      queue: {
        read: async () => {
          const answer = deferred<string>();
          queues.push(answer);
          return { queue: await answer.promise };
        },
        touchedBy: (event) => event.kind === 'queued',
      },
    },
  };
  const http = new ScriptedHttp({ LatestSeq: () => ({ latestSeq: 5 }) });
  const server = new FakeLiveServer();
  const failures: unknown[] = [];
  const live = new LiveList(source, {
    http,
    client: server,
    onFailure: (e) => failures.push(e),
    schedule: (run) => run(),
  });
  const list = (...things: Thing[]) => ({ totalCount: things.length, edges: things.map((node) => ({ node })) });
  /** Start, answering the list and the side read. */
  async function started(...things: Thing[]) {
    const starting = live.start();
    await settle();
    lists[0]?.resolve(list(...things));
    queues[0]?.resolve('q0');
    await starting;
  }
  return { source, http, server, live, failures, lists, roots, queues, list, started };
}

describe('LiveList', () => {
  it('reads the position, then the list and the side reads, then follows its root type from that position', async () => {
    const { http, server, live, started } = setup();
    await started(thing('1'), thing('2'));
    expect(http.calls.map((c) => c.operation)).toEqual(['LatestSeq']);
    expect(live.store.get()).toMatchObject({ loaded: true, total: 2, order: ['2', '1'], queue: 'q0', error: null });
    const wire = JSON.parse(JSON.stringify(server.subs[0]?.payload)) as { variables: unknown };
    expect(wire.variables).toEqual({ filter: { rootType: 'thing' }, after: 5 });
  });

  it('re-reads the root an event names, and a side read only when the event touches it', async () => {
    const { server, live, roots, queues, started } = setup();
    await started(thing('1'));
    server.append({ seq: 6, kind: 'changed', rootId: '1' });
    server.append({ seq: 7, kind: 'queued', rootId: '3' });
    expect(roots.map((r) => r.id)).toEqual(['1', '3']);
    expect(queues).toHaveLength(2);
    roots[0]?.answer.resolve(thing('1', 'v2'));
    roots[1]?.answer.resolve(thing('3'));
    queues[1]?.resolve('q1');
    await settle();
    const state = live.store.get();
    expect(state.byId['1']?.version).toBe('v2');
    // Root 3 is shown, but only its creation event would count it: it may be an old one not held.
    expect(state).toMatchObject({ order: ['3', '1'], total: 1, queue: 'q1' });
  });

  it('keeps the newest re-read when an older one lands after it', async () => {
    const { server, live, roots, queues, started } = setup();
    await started(thing('1'));
    server.append({ seq: 6, kind: 'queued', rootId: '1' });
    server.append({ seq: 7, kind: 'queued', rootId: '1' });
    const [older, newer] = roots;
    newer?.answer.resolve(thing('1', 'new'));
    queues[2]?.resolve('new');
    await settle();
    older?.answer.resolve(thing('1', 'old'));
    queues[1]?.resolve('old');
    await settle();
    expect(live.store.get()).toMatchObject({ byId: { '1': { version: 'new' } }, queue: 'new' });
  });

  it('shows an older answer that lands first, until the newer one replaces it', async () => {
    const { server, live, roots, started } = setup();
    await started(thing('1'));
    server.append({ seq: 6, rootId: '1' });
    server.append({ seq: 7, rootId: '1' });
    roots[0]?.answer.resolve(thing('1', 'old'));
    await settle();
    expect(live.store.get().byId['1']?.version).toBe('old');
    roots[1]?.answer.resolve(thing('1', 'new'));
    await settle();
    expect(live.store.get().byId['1']?.version).toBe('new');
  });

  it('never lets the list snapshot overwrite a root read sent after it', async () => {
    const { live, lists, roots, queues } = setup();
    const starting = live.start();
    await settle();
    live.reread('1');
    roots[0]?.answer.resolve(thing('1', 'new'));
    await settle();
    lists[0]?.resolve({ totalCount: 1, edges: [{ node: thing('1', 'old') }] });
    queues[0]?.resolve('q0');
    await starting;
    expect(live.store.get()).toMatchObject({ loaded: true, byId: { '1': { version: 'new' } } });
  });

  it('does not hold one root back while another is read slowly', async () => {
    const { server, live, roots, started } = setup();
    await started();
    server.append({ seq: 6, rootId: 'slow' });
    server.append({ seq: 7, rootId: '2' });
    roots[1]?.answer.resolve(thing('2'));
    await settle();
    expect(live.store.get().order).toEqual(['2']);
    roots[0]?.answer.resolve(thing('slow'));
    await settle();
    expect(Object.keys(live.store.get().byId).sort()).toEqual(['2', 'slow']);
  });

  it('reports a failed re-read and keeps what it shows; the next answer clears a stream error', async () => {
    const { server, live, roots, failures, started } = setup();
    await started(thing('1'));
    server.subs[0]!.sink.next({ errors: [{ message: 'boom' }] });
    expect(live.store.get().error).toBe('boom');
    server.append({ seq: 6, rootId: '1' });
    roots[0]?.answer.reject(new Error('offline'));
    await settle();
    expect(failures).toHaveLength(1);
    expect(live.store.get()).toMatchObject({ error: 'boom', byId: { '1': { version: 'v1' } } });
    server.append({ seq: 7, rootId: '1' });
    roots[1]?.answer.resolve(thing('1', 'v2'));
    await settle();
    expect(live.store.get()).toMatchObject({ error: null, byId: { '1': { version: 'v2' } } });
  });

  it('hands a failed start to the shell and shows the error; stops following when stopped', async () => {
    const broken = new LiveList(setup().source, {
      http: new ScriptedHttp({}),
      client: new FakeLiveServer(),
      onFailure: () => {},
    });
    await broken.start();
    expect(broken.store.get().error).toMatch(/LatestSeq/);

    const { server, live, roots, started } = setup();
    await started();
    server.append({ seq: 6, rootId: '1' });
    live.stop();
    roots[0]?.answer.resolve(thing('1'));
    await settle();
    expect(server.subs.every((s) => !s.active)).toBe(true);
    expect(live.store.get().order).toEqual([]);
  });
});

describe('upsertRoots', () => {
  it('lists roots newest first and replaces re-read ones, leaving the count to creation events', () => {
    const { source } = setup();
    let state = { ...upsertRoots(initialList(source), [thing('1'), thing('2')]), total: 2 };
    state = upsertRoots(state, [thing('3'), thing('1', 'v2')]);
    expect(rootsInOrder(state).map((t) => t.id)).toEqual(['3', '2', '1']);
    expect(state.byId['1']?.version).toBe('v2');
    expect(state.total).toBe(2);
    const none: Thing[] = [];
    expect(upsertRoots(state, none)).toBe(state);
  });
});

describe('a list held to a limit', () => {
  it('keeps the newest roots only', () => {
    const held = upsertRoots(initialList<Thing, Extra>({ ...setup().source, initial: { queue: null } }), [thing('1'), thing('2')], 2);
    const next = upsertRoots(held, [thing('3')], 2);
    expect(next.order).toEqual(['3', '2']);
    expect(Object.keys(next.byId).sort()).toEqual(['2', '3']);
  });
});

describe('the total', () => {
  it('counts a root created after the list was read once, and an older root that changes not at all', async () => {
    // The server counted 3; the list holds the newest 2 (limit 2).
    const { server, live, roots, lists, queues } = setup(2);
    const starting = live.start();
    await settle();
    lists[0]?.resolve({ totalCount: 3, edges: [{ node: thing('3') }, { node: thing('2') }] });
    queues[0]?.resolve('q0');
    await starting;
    server.append({ seq: 6, kind: 'changed', rootId: '1' }); // root 1, older than both: not new
    roots[0]?.answer.resolve(thing('1', 'v2'));
    await settle();
    expect(live.store.get()).toMatchObject({ total: 3, order: ['3', '2'] });
    server.append({ seq: 7, kind: 'created', rootId: '4' });
    server.append({ seq: 8, kind: 'created', rootId: '3' }); // held already: the list's count has it
    roots[1]?.answer.resolve(thing('4'));
    roots[2]?.answer.resolve(thing('3'));
    await settle();
    expect(live.store.get()).toMatchObject({ total: 4, order: ['4', '3'] });
  });
});
