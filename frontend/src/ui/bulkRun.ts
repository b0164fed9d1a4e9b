/**
 * A bulk decision's work apart from its page: reading every item of a group page by page, and sending
 * the decisions in parts (each part one decideReviews request, each item its own transaction on the
 * server), with what was decided and what was refused, in words, at the end.
 */
import type { DecideReviewsMutation, ReviewKind } from '../core/graphql.generated';
import { describeFailure, describeUserError } from '../core/userErrors';

export interface BulkTarget {
  key: string;
  /** What is decided on, in words, unique on the page: "step 2 of “Cold batteries”". */
  label: string;
  /** What decideReviews decides on: its kind and id. */
  kind: ReviewKind;
  id: string;
}

export interface PageOfItems<T> {
  items: readonly T[];
  hasNext: boolean;
  endCursor: string | null | undefined;
}

/**
 * Every item of a cursor-paged list: `readPage(after)` from the first page (after null) to the last;
 * `onRead` is told how many so far after each page.
 */
export async function readEveryPage<T>(
  readPage: (after: string | null) => Promise<PageOfItems<T>>,
  onRead: (count: number) => void,
): Promise<T[]> {
  const items: T[] = [];
  let after: string | null = null;
  for (;;) {
    const page: PageOfItems<T> = await readPage(after);
    items.push(...page.items);
    onRead(items.length);
    // A page that does not move the cursor on would be read again forever.
    if (!page.hasNext || !page.items.length || !page.endCursor || page.endCursor === after) return items;
    after = page.endCursor;
  }
}

type DecideAnswer = DecideReviewsMutation['decideReviews'];

export interface BulkOutcome {
  decided: BulkTarget[];
  refused: { label: string; why: string }[];
}

/**
 * Decides `targets` `perRequest` at a time through `send`; `onProgress` is told how many have been
 * answered after each request. A request that fails is reported to `onFailure` and its items are
 * refused with the failure's words; the next part is still sent.
 */
export async function decideInParts(
  targets: readonly BulkTarget[],
  perRequest: number,
  send: (part: readonly BulkTarget[]) => Promise<DecideAnswer>,
  onProgress: (done: number) => void,
  onFailure: (error: unknown) => void,
): Promise<BulkOutcome> {
  const outcome: BulkOutcome = { decided: [], refused: [] };
  for (let start = 0; start < targets.length; start += perRequest) {
    const part = targets.slice(start, start + perRequest);
    try {
      const answer = await send(part);
      if (answer.userErrors.length) {
        const why = answer.userErrors.map(describeUserError).join(' ');
        part.forEach((t) => outcome.refused.push({ label: t.label, why }));
      }
      answer.results.forEach((r) => {
        const target = part[r.index];
        if (!target) return;
        if (r.decided) outcome.decided.push(target);
        else outcome.refused.push({ label: target.label, why: r.userErrors.map(describeUserError).join(' ') });
      });
    } catch (error) {
      onFailure(error);
      part.forEach((t) => outcome.refused.push({ label: t.label, why: describeFailure(error) }));
    }
    onProgress(start + part.length);
  }
  return outcome;
}
