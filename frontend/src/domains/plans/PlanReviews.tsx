/**
 * The plans' group of the Reviews page: the steps awaiting input a page at a time, the nearest deadline
 * first (then the longest waiting), each naming its plan, with the decision buttons; read again whenever
 * the live count is.
 */
import { useState } from 'react';

import { markAnswered, noneAnswered, stillWaiting } from '../../core/answered';
import { ReviewInboxDocument } from '../../core/graphql.generated';
import { useNow } from '../../core/hooks';
import { href } from '../../core/router';
import { words } from '../../core/userErrors';
import { useSelection, type Selection } from '../../ui/BulkDecide';
import { pageOf, ReviewGroup, ReviewMeta, ReviewRow, useReviewPages, type PageRead } from '../../ui/ReviewPages';
import { StatusBadge } from '../../ui/StatusBadge';
import type { ReviewRequest } from './api';
import { usePlanReviewRead, useRefreshPlanReviews } from './context';
import { DecisionForm, type Decided } from './DecisionForm';
import { Instructions } from './Instructions';
import { Questions } from './Questions';

interface DecidedItem extends Decided {
  id: number;
  stepId: string;
  planId: string;
  label: string;
}

const readPage: PageRead<ReviewRequest> = (http, first, after) =>
  http.request(ReviewInboxDocument, { first, after }).then((r) => pageOf(r.reviewInbox));

const WHAT = 'plan steps';

function toTarget(request: ReviewRequest) {
  return { key: request.step.id, label: describeRequest(request), kind: 'PLAN_STEP' as const, id: request.step.id };
}

export function PlanReviews() {
  const pages = useReviewPages(readPage, usePlanReviewRead());
  const refresh = useRefreshPlanReviews();
  const [decided, setDecided] = useState<DecidedItem[]>([]);
  // A step answered here leaves the page at once; the next read (which no longer has it) takes over.
  const [answered, setAnswered] = useState(noneAnswered<ReviewRequest>);
  const shown = pages.page?.items ?? null;
  const waiting = stillWaiting(shown, answered, (r) => r.step.id) ?? [];
  const now = useNow();
  const targets = waiting.map(toTarget);
  const selection = useSelection(targets.map((t) => t.key), pages.scope);
  const refreshAll = () => {
    refresh();
    pages.refresh();
  };

  return (
    <section aria-labelledby="plan-reviews-title" className="review-section" data-testid="plan-reviews">
      <h2 id="plan-reviews-title">Research plan steps</h2>
      <ReviewGroup
        pages={pages}
        what={WHAT}
        targets={targets}
        toTarget={toTarget}
        selection={selection}
        onBulkDone={refreshAll}
        empty={
          <>
            No plan step is waiting for a decision. When an agent calls <code>requestUserReview</code>, the step appears
            here at once.
          </>
        }
      >
        {waiting.map((request) => (
          <InboxItem
            key={request.step.id}
            request={request}
            now={now}
            selection={selection}
            onDecided={(d) => {
              setDecided((list) => [
                {
                  ...d,
                  id: (list[0]?.id ?? 0) + 1,
                  stepId: request.step.id,
                  planId: request.plan.id,
                  label: describeRequest(request),
                },
                ...list,
              ]);
              setAnswered((a) => markAnswered(a, shown, request.step.id));
              refreshAll();
            }}
          />
        ))}
      </ReviewGroup>
      {decided.length ? (
        <section aria-labelledby="plan-decided-title">
          <h3 id="plan-decided-title">Decided here</h3>
          <ul className="decided" aria-live="polite">
            {decided.map((d) => (
              <li key={d.id} className="card" data-decided-step={d.stepId}>
                <strong>{words(d.decision)}</strong> — {d.label}: step now <StatusBadge status={d.stepStatus} />, plan
                now <StatusBadge status={d.planStatus} />{' '}
                <a href={href(`/plans/${d.planId}`)}>
                  Open the plan<span className="sr-only"> of {d.label}</span>
                </a>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </section>
  );
}

function describeRequest(request: ReviewRequest): string {
  const plan = request.plan.title || request.plan.researchQuestion;
  return `step ${request.step.order} of “${plan}”`;
}

interface ItemProps {
  request: ReviewRequest;
  now: number;
  selection: Selection;
  onDecided: (d: Decided) => void;
}

function InboxItem({ request, now, selection, onDecided }: ItemProps) {
  const { step, plan } = request;
  const subject = describeRequest(request);
  return (
    <ReviewRow
      data={{ 'data-review-step': step.id }}
      target={{ key: step.id, label: subject }}
      selection={selection}
      kind="Plan"
      title={
        <>
          <a href={href(`/plans/${plan.id}`)}>
            {plan.title || plan.researchQuestion}
            <span className="sr-only"> (step {step.order})</span>
          </a>
          <span className="review-step">
            {' '}
            — step {step.order} ({words(step.stepType)})
          </span>
        </>
      }
      meta={<ReviewMeta decision={request.openDecision} since={request.waitingSince} now={now} />}
    >
      {step.reviewSummary ? <p className="review-summary">{step.reviewSummary}</p> : null}
      <Questions questions={step.reviewQuestions} />
      <details>
        <summary>
          Step instructions<span className="sr-only"> of {subject}</span>
        </summary>
        <Instructions text={step.instructions} />
      </details>
      <DecisionForm stepId={step.id} subject={subject} onDecided={onDecided} />
    </ReviewRow>
  );
}
