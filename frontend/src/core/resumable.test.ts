import { describe, expect, it } from 'vitest';

import { FakeLiveServer } from '../test/fakes';
import { EventsDocument } from './graphql.generated';
import { subscribeFromSeq } from './resumable';

function follow(server: FakeLiveServer, after: number) {
  const seen: number[] = [];
  const errors: string[] = [];
  const stream = subscribeFromSeq(server, {
    operation: EventsDocument,
    field: 'events',
    variables: { filter: { rootId: 'p1' } },
    after,
    onItem: (e) => seen.push(e.seq),
    onError: (m) => errors.push(m),
  });
  return { seen, errors, stream };
}

describe('subscribeFromSeq', () => {
  it('asks for events after the snapshot position and delivers them in order', () => {
    const server = new FakeLiveServer();
    [1, 2, 3, 4].forEach((seq) => server.append({ seq }));
    const { seen } = follow(server, 2);
    server.append({ seq: 5 });
    expect(seen).toEqual([3, 4, 5]);
    expect(server.subs[0]?.requested).toEqual([2]);
  });

  it('resumes from the last seq after a dropped connection: nothing missed, nothing twice', () => {
    const server = new FakeLiveServer();
    const { seen, stream } = follow(server, 0);
    [1, 2, 3].forEach((seq) => server.append({ seq }));
    server.drop();
    [4, 5, 6].forEach((seq) => server.append({ seq })); // produced while the socket is down
    server.reconnect();
    server.append({ seq: 7 });
    server.resend(7);
    server.resend(2);

    expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(server.subs[0]?.requested).toEqual([0, 3]);
    expect(stream.cursor.last).toBe(7);
  });

  it('keeps the fixed variables next to the moving after', () => {
    const server = new FakeLiveServer();
    follow(server, 9);
    expect(JSON.parse(JSON.stringify(server.subs[0]?.payload))).toEqual({
      query: String(EventsDocument),
      variables: { filter: { rootId: 'p1' }, after: 9 },
    });
  });

  it('reports GraphQL errors and socket errors in words, and goes quiet once stopped', () => {
    const server = new FakeLiveServer();
    const { seen, errors, stream } = follow(server, 0);
    const sink = server.subs[0]!.sink;
    sink.next({ errors: [{ message: 'after must be a seq (>= 0)' }] });
    sink.error({ code: 4403, reason: 'Forbidden' });
    stream.stop();
    server.append({ seq: 1 });
    sink.error(new Error('late'));
    expect(errors).toEqual(['after must be a seq (>= 0)', 'connection closed (4403: Forbidden)']);
    expect(seen).toEqual([]);
    expect(server.subs[0]?.active).toBe(false);
  });
});
