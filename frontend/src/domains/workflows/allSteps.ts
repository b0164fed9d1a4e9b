/**
 * Every step of a workflow, for the DAG: its snapshot carries the first page (at most 100, the API's
 * page cap), and the rest is read page by page after it, bounded by the snapshot's count and by the
 * largest workflow a server may allow (FLIGHTDECK_MAX_STEPS, at most 10,000).
 */
import type { WorkflowStep } from './api';

/** The largest `max_steps` a server accepts: no workflow has more steps. */
export const MAX_WORKFLOW_STEPS = 10_000;

export interface StepPage {
  steps: readonly WorkflowStep[];
  hasNext: boolean;
  endCursor: string | null | undefined;
}

/**
 * The first page and every page after it, read one after another. Stops when a page says there is no
 * more, when `total` (the snapshot's count) or MAX_WORKFLOW_STEPS is reached, or when a read answers
 * nothing (the workflow is gone); a page that makes no progress stops it too.
 */
export async function readAllSteps(
  first: StepPage,
  total: number,
  readAfter: (after: string) => Promise<StepPage | null>,
): Promise<WorkflowStep[]> {
  const steps = [...first.steps];
  const bound = Math.min(total, MAX_WORKFLOW_STEPS);
  let page: StepPage | null = first;
  while (page?.hasNext && page.endCursor && steps.length < bound) {
    page = await readAfter(page.endCursor);
    if (!page?.steps.length) break;
    steps.push(...page.steps.slice(0, bound - steps.length));
  }
  return steps;
}
