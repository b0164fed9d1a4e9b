import { describe, expect, it } from 'vitest';

import { FakeLiveServer, ScriptedHttp, settle } from '../test/fakes';
import { LivePage, type Page } from './livePage';

interface Row {
  id: string;
  version: string;
}

function setup(pages: Page<Row>[], rows: Record<string, Row>, matches?: (row: Row) => boolean) {
  const http = new ScriptedHttp({ LatestSeq: () => ({ latestSeq: 7 }) });
  const server = new FakeLiveServer();
  const reads: string[] = [];
  const live = new LivePage<Row>(
    {
      rootType: 'thing',
      readPage: async () => pages.shift() ?? { totalCount: 0, pageInfo: { hasNextPage: false }, edges: [] },
      readRow: async (_http, id) => (reads.push(id), rows[id] ?? null),
      matches,
    },
    { http, client: server, onFailure: () => {}, schedule: (run) => run() },
  );
  return { server, live, reads };
}

const page = (ids: string[], total: number): Page<Row> => ({
  totalCount: total,
  pageInfo: { hasNextPage: total > ids.length, endCursor: ids.at(-1) ?? null },
  edges: ids.map((id) => ({ node: { id, version: 'v1' } })),
});

describe('a live page of a table', () => {
  it('follows its root type from the position read before the page', async () => {
    const { server, live } = setup([page(['a', 'b'], 5)], {});
    await live.start();
    const wire = server.subs.map((s) => JSON.parse(JSON.stringify(s.payload)) as { variables: unknown });
    expect(wire.map((w) => w.variables)).toEqual([{ filter: { rootType: 'thing' }, after: 7 }]);
    expect(live.store.get()).toMatchObject({ loaded: true, total: 5, hasNext: true, endCursor: 'b', unseen: 0 });
  });

  it('updates a row on the page where it stands, and only counts roots not on it', async () => {
    const { server, live, reads } = setup([page(['a', 'b'], 5), page(['c', 'a'], 6)], { b: { id: 'b', version: 'v2' } });
    await live.start();
    server.append({ seq: 8, kind: 'step_started', entityType: 'step', rootId: 'b' });
    server.append({ seq: 9, kind: 'plan_modified', entityType: 'plan', rootId: 'c' });
    server.append({ seq: 10, kind: 'step_started', entityType: 'step', rootId: 'c' });
    await settle();
    expect(reads).toEqual(['b']);
    const state = live.store.get();
    expect(state.rows.map((r) => `${r.id}:${r.version}`)).toEqual(['a:v1', 'b:v2']);
    expect(state.unseen).toBe(1);
    expect(state.total).toBe(5);
    await live.reload();
    expect(live.store.get()).toMatchObject({ total: 6, unseen: 0 });
    expect(live.store.get().rows.map((r) => r.id)).toEqual(['c', 'a']);
  });

  it('marks and counts a row that stops matching the filter, and takes the mark off if it matches again', async () => {
    const rows: Record<string, Row> = {};
    const { server, live } = setup([page(['a', 'b'], 2), page(['a'], 1)], rows, (row) => row.version === 'v1');
    await live.start();
    rows.b = { id: 'b', version: 'v2' };
    server.append({ seq: 8, kind: 'plan_transitioned', entityType: 'plan', rootId: 'b' });
    await settle();
    expect([...live.store.get().leaving]).toEqual(['b']);
    expect(live.store.get().total).toBe(1);
    expect(live.store.get().rows.map((r) => r.id)).toEqual(['a', 'b']);
    rows.b = { id: 'b', version: 'v1' };
    server.append({ seq: 9, kind: 'plan_transitioned', entityType: 'plan', rootId: 'b' });
    await settle();
    expect(live.store.get().leaving.size).toBe(0);
    expect(live.store.get().total).toBe(2);
    rows.b = { id: 'b', version: 'v3' };
    server.append({ seq: 10, kind: 'plan_transitioned', entityType: 'plan', rootId: 'b' });
    await settle();
    await live.reload();
    expect(live.store.get()).toMatchObject({ total: 1 });
    expect(live.store.get().leaving.size).toBe(0);
    expect(live.store.get().rows.map((r) => r.id)).toEqual(['a']);
  });
});
