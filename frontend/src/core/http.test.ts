import { describe, expect, it } from 'vitest';

import { LatestSeqDocument, PlanSummaryDocument } from './graphql.generated';
import { AuthRequired, createHttp, RequestFailed, type Fetch } from './http';

function answering(status: number, body: unknown, seen: RequestInit[] = []): Fetch {
  return async (_url, init) => {
    seen.push(init);
    return new Response(JSON.stringify(body), { status });
  };
}

describe('createHttp', () => {
  it('sends the session key as a bearer token and returns data', async () => {
    const seen: RequestInit[] = [];
    const http = createHttp('/graphql', () => 'fdk_abc', answering(200, { data: { latestSeq: 4 } }, seen));
    await expect(http.request(LatestSeqDocument)).resolves.toEqual({ latestSeq: 4 });
    const headers = seen[0]?.headers as Record<string, string>;
    expect(headers.authorization).toBe('Bearer fdk_abc');
    expect(JSON.parse(String(seen[0]?.body))).toEqual({ query: String(LatestSeqDocument), variables: {} });
  });

  it('sends an operation as its text, with its variables', async () => {
    const seen: RequestInit[] = [];
    const http = createHttp('/graphql', () => null, answering(200, { data: { researchPlan: null } }, seen));
    await http.request(PlanSummaryDocument, { id: 'p1' });
    const body = JSON.parse(String(seen[0]?.body)) as { query: string; variables: unknown };
    expect(body.query).toMatch(/^\s*query PlanSummary\(\$id: ID!\) \{/);
    expect(body.query).toContain('fragment PlanSummaryFields on ResearchPlan');
    expect(body.variables).toEqual({ id: 'p1' });
  });

  it('sends no authorization header in dev mode', async () => {
    const seen: RequestInit[] = [];
    const http = createHttp('/graphql', () => null, answering(200, { data: { latestSeq: 0 } }, seen));
    await http.request(LatestSeqDocument);
    expect((seen[0]?.headers as Record<string, string>).authorization).toBeUndefined();
  });

  it('turns 401 into AuthRequired and top-level errors into RequestFailed with their code', async () => {
    const denied = createHttp('/graphql', () => 'bad', answering(401, { errors: [{ message: 'unknown key' }] }));
    await expect(denied.request(LatestSeqDocument)).rejects.toBeInstanceOf(AuthRequired);
    // The refusal names the key it answered, read when the request left: a key entered while it was in
    // flight is not the one refused.
    let held = 'old';
    const slow = createHttp('/graphql', () => held, async () => {
      held = 'new';
      return new Response(JSON.stringify({ errors: [{ message: 'unknown key' }] }), { status: 401 });
    });
    const refusal = await slow.request(LatestSeqDocument).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(AuthRequired);
    expect((refusal as AuthRequired).key).toBe('old');

    const forbidden = createHttp(
      '/graphql',
      () => 'viewer',
      answering(200, { data: null, errors: [{ message: 'no', extensions: { code: 'FORBIDDEN' } }] }),
    );
    const error = await forbidden.request(LatestSeqDocument).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestFailed);
    expect((error as RequestFailed).code).toBe('FORBIDDEN');
  });

  it('explains a response that is not GraphQL', async () => {
    const http = createHttp('/graphql', () => null, async () => new Response('<html>', { status: 502 }));
    await expect(http.request(LatestSeqDocument)).rejects.toThrow('HTTP 502');
  });
});
