import { describe, expect, it } from 'vitest';

import { FakeLiveServer, ScriptedHttp, settle } from '../test/fakes';
import { PlanUpdatedDocument } from './graphql.generated';
import { RootLive } from './rootLive';

describe('RootLive', () => {
  it('stops paging when a page says there is more but holds nothing, and follows from the last seq', async () => {
    const page = (seqs: number[]) => ({
      events: { edges: seqs.map((seq) => ({ node: { seq, rootId: 'r' } })), pageInfo: { hasNextPage: true } },
    });
    const http = new ScriptedHttp({ History: (v) => (v.after === 0 ? page([1, 2]) : page([])) });
    const server = new FakeLiveServer();
    const source = { id: 'r', operation: PlanUpdatedDocument, field: 'researchPlanUpdated', filter: { rootId: 'r' } };
    const live = new RootLive(source, http, server, () => {});
    live.start();
    await settle();
    expect(http.calls.map((c) => c.variables.after)).toEqual([0, 2]);
    expect(live.store.get()).toMatchObject({ historyLoaded: true, error: null });
    expect(server.subs[1]?.requested).toEqual([2]);
    live.stop();
  });
});
