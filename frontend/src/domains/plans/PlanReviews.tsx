/** The plans' part of the Reviews page: every step awaiting input, with the decision buttons; kept live. */
import { useState } from 'react';

import { markAnswered, noneAnswered, stillWaiting } from '../../core/answered';
import { formatDuration, formatTime } from '../../core/format';
import { useNow } from '../../core/hooks';
import { href } from '../../core/router';
import { words } from '../../core/userErrors';
import { BulkDecide, SelectBox, useSelection, type Selection } from '../../ui/BulkDecide';
import { StatusBadge } from '../../ui/StatusBadge';
import type { ReviewRequest } from './api';
import { usePlanInbox, useRefreshPlanInbox } from './context';
import { DecisionForm, type Decided } from './DecisionForm';
import { Instructions } from './Instructions';
import { Questions } from './Questions';

interface DecidedItem extends Decided {
  id: number;
  stepId: string;
  planId: string;
  label: string;
}

export function PlanReviews() {
  const read = usePlanInbox();
  const refreshInbox = useRefreshPlanInbox();
  const [decided, setDecided] = useState<DecidedItem[]>([]);
  // The inbox is kept live (domains/plans/live.ts); a step answered here leaves it at once.
  const [answered, setAnswered] = useState(noneAnswered<ReviewRequest>);
  const inbox = read.value?.requests ?? null;
  const requests = stillWaiting(inbox, answered, (r) => r.step.id);
  const error = inbox === null ? read.error : null;
  const now = useNow();
  // The longest waiting first.
  const waiting = [...(requests ?? [])].sort((a, b) => Date.parse(a.waitingSince) - Date.parse(b.waitingSince));
  const targets = waiting.map((r) => ({
    key: r.step.id,
    label: describeRequest(r),
    kind: 'PLAN_STEP' as const,
    id: r.step.id,
  }));
  const selection = useSelection(targets.map((t) => t.key));

  return (
    <section aria-labelledby="plan-reviews-title" className="review-section" data-testid="plan-reviews">
      <h2 id="plan-reviews-title">Research plan steps</h2>
      {error ? <p className="error" role="alert">Could not load the inbox: {error}</p> : null}
      {requests === null && !error ? <p>Loading…</p> : null}
      {requests?.length === 0 ? (
        <p className="card empty-small">
          No plan step is waiting for a decision. When an agent calls <code>requestUserReview</code>, the step appears
          here at once.
        </p>
      ) : null}
      <BulkDecide
        what="plan steps"
        targets={targets}
        selection={selection}
        onDone={refreshInbox}
      />
      <ul className="inbox" aria-label="Plan steps waiting, the longest waiting first">
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
              setAnswered((a) => markAnswered(a, inbox, request.step.id));
              refreshInbox();
            }}
          />
        ))}
      </ul>
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
  const headingId = `review-${step.id}`;
  const subject = describeRequest(request);
  return (
    <li className="card review" data-review-step={step.id} aria-labelledby={headingId}>
      <div className="review-head">
        <h3 id={headingId}>
          <a href={href(`/plans/${plan.id}`)}>
            {plan.title || plan.researchQuestion}
            <span className="sr-only"> (step {step.order})</span>
          </a>
          <span className="review-step">
            {' '}
            — step {step.order} ({words(step.stepType)})
          </span>
        </h3>
        <SelectBox selection={selection} target={{ key: step.id, label: subject }} />
      </div>
      <p className="meta">
        <span className="waited">waiting {formatDuration(now - Date.parse(request.waitingSince))}</span> · since{' '}
        {formatTime(request.waitingSince)}
      </p>
      {step.reviewSummary ? <p className="review-summary">{step.reviewSummary}</p> : null}
      <Questions questions={step.reviewQuestions} />
      <details>
        <summary>
          Step instructions<span className="sr-only"> of {subject}</span>
        </summary>
        <Instructions text={step.instructions} />
      </details>
      <DecisionForm stepId={step.id} subject={subject} onDecided={onDecided} />
    </li>
  );
}
