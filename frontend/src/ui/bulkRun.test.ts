import { describe, expect, it } from 'vitest';

import type { DecideReviewsMutation } from '../core/graphql.generated';
import { decideInParts, readEveryPage, type BulkTarget, type PageOfItems } from './bulkRun';

type Answer = DecideReviewsMutation['decideReviews'];

function target(n: number): BulkTarget {
  return { key: `k${n}`, label: `step ${n}`, kind: 'WORKFLOW_STEP', id: `id${n}` };
}

const taken = {
  code: 'INVALID_TRANSITION' as const,
  message: 'approved already',
  field: [],
  entity: 'workflow_step',
  fromState: 'COMPLETED',
  toState: null,
};

/** A server whose queue holds `count` items, read `cap` at a time by an index cursor. */
function pagedQueue(count: number, cap: number) {
  const asked: (string | null)[] = [];
  const read = async (after: string | null): Promise<PageOfItems<number>> => {
    asked.push(after);
    const from = after === null ? 0 : Number(after);
    const items = Array.from({ length: Math.max(0, Math.min(cap, count - from)) }, (_, i) => from + i);
    return { items, hasNext: from + items.length < count, endCursor: String(from + items.length) };
  };
  return { asked, read };
}

describe('reading a whole review group', () => {
  it('reads page after page by cursor until the last, counting as it goes', async () => {
    const queue = pagedQueue(480, 100);
    const counts: number[] = [];
    const items = await readEveryPage(queue.read, (n) => counts.push(n));
    expect(items).toEqual(Array.from({ length: 480 }, (_, i) => i));
    expect(queue.asked).toEqual([null, '100', '200', '300', '400']);
    expect(counts).toEqual([100, 200, 300, 400, 480]);
  });

  it('stops on a page that does not move the cursor on', async () => {
    let reads = 0;
    const stuck = async (): Promise<PageOfItems<number>> => {
      reads += 1;
      return { items: [1], hasNext: true, endCursor: 'same' };
    };
    expect(await readEveryPage(stuck, () => {})).toEqual([1, 1]);
    expect(reads).toBe(2);
  });
});

describe('deciding in parts', () => {
  it('sends PER_REQUEST at a time, shows the progress, and lists refusals with their reasons', async () => {
    const targets = Array.from({ length: 120 }, (_, i) => target(i));
    const sent: number[] = [];
    const progress: number[] = [];
    const outcome = await decideInParts(
      targets,
      50,
      async (part): Promise<Answer> => {
        sent.push(part.length);
        return {
          decided: part.length,
          refused: 0,
          userErrors: [],
          results: part.map((t, index) => {
            // Someone else decided step 70 meanwhile.
            const refused = t.id === 'id70';
            return { index, subjectId: t.id, decided: !refused, userErrors: refused ? [taken] : [] };
          }),
        };
      },
      (done) => progress.push(done),
      () => {},
    );
    expect(sent).toEqual([50, 50, 20]);
    expect(progress).toEqual([50, 100, 120]);
    expect(outcome.decided).toHaveLength(119);
    expect(outcome.refused).toHaveLength(1);
    expect(outcome.refused[0]?.label).toBe('step 70');
    expect(outcome.refused[0]?.why).toContain('It is completed now.');
  });

  it('refuses the items of a failed request, reports the failure and goes on with the next part', async () => {
    const failures: unknown[] = [];
    let calls = 0;
    const outcome = await decideInParts(
      [target(1), target(2), target(3)],
      2,
      async (part): Promise<Answer> => {
        calls += 1;
        if (calls === 1) throw new Error('network down');
        return {
          decided: part.length,
          refused: 0,
          userErrors: [],
          results: part.map((t, index) => ({ index, subjectId: t.id, decided: true, userErrors: [] })),
        };
      },
      () => {},
      (error) => failures.push(error),
    );
    expect(failures).toHaveLength(1);
    expect(outcome.refused.map((r) => [r.label, r.why])).toEqual([
      ['step 1', 'network down'],
      ['step 2', 'network down'],
    ]);
    expect(outcome.decided.map((t) => t.id)).toEqual(['id3']);
  });
});
