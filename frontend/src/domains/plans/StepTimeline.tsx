/** The steps in order: state, how long, result, confidence, instructions with feedback, branches fired. */
import { elapsed, formatConfidence, formatDuration, formatTime } from '../../core/format';
import { useNow } from '../../core/hooks';
import { words } from '../../core/userErrors';
import { StatusBadge } from '../../ui/StatusBadge';
import type { Step } from './api';
import { DecisionForm } from './DecisionForm';
import { Instructions } from './Instructions';
import { Questions } from './Questions';
import { splitFeedback, type FiredBranch } from './timeline';

export function StepTimeline({ steps, fired }: { steps: readonly Step[]; fired: readonly FiredBranch[] }) {
  const now = useNow();
  return (
    <ol className="timeline">
      {steps.map((step) => (
        <StepItem key={step.id} step={step} now={now} fired={fired.filter((f) => f.stepId === step.id)} />
      ))}
    </ol>
  );
}

function duration(step: Step, now: number): string {
  const status = step.status;
  if (status === 'PENDING') return 'not started';
  if (status === 'AWAITING_INPUT') {
    const waiting = elapsed(step.updatedAt, null, now);
    return `waiting for review${waiting === null ? '' : ` for ${formatDuration(waiting)}`}`;
  }
  const ran = elapsed(step.startedAt, step.completedAt, now);
  if (ran === null) return words(status);
  return status === 'IN_PROGRESS' ? `running for ${formatDuration(ran)}` : `took ${formatDuration(ran)}`;
}

function StepItem({ step, now, fired }: { step: Step; now: number; fired: readonly FiredBranch[] }) {
  const { original } = splitFeedback(step.instructions);
  const status = step.status.toLowerCase();
  return (
    <li className={`timeline-step step-${status}`} data-step-id={step.id} data-status={status}>
      <div className="timeline-head">
        <h3>
          Step {step.order}
          <span className="step-type"> · {words(step.stepType)}</span>
          {step.title && !original.startsWith(step.title) ? <span className="step-title"> · {step.title}</span> : null}
        </h3>
        <StatusBadge status={step.status} />
        <span className="meta">{duration(step, now)}</span>
      </div>
      <dl className="step-facts">
        {step.startedAt ? (
          <>
            <dt>Started</dt>
            <dd>{formatTime(step.startedAt)}</dd>
          </>
        ) : null}
        {step.resultSummary ? (
          <>
            <dt>Result</dt>
            <dd>{step.resultSummary}</dd>
          </>
        ) : null}
        {step.confidence != null ? (
          <>
            <dt>Confidence</dt>
            <dd>{formatConfidence(step.confidence)}</dd>
          </>
        ) : null}
        {step.reviewSummary && step.status !== 'AWAITING_INPUT' ? (
          <>
            <dt>Reviewed</dt>
            <dd>{step.reviewSummary}</dd>
          </>
        ) : null}
        {step.failureReason ? (
          <>
            <dt>Failure</dt>
            <dd>{step.failureReason}</dd>
          </>
        ) : null}
      </dl>
      <Instructions text={step.instructions} />
      {fired.map((f) => (
        <p key={f.seq} className="branch-fired">
          <strong>Branch fired:</strong> {f.description}
        </p>
      ))}
      {step.status === 'AWAITING_INPUT' ? (
        <div className="review-box">
          <p>
            <strong>Review requested:</strong> {step.reviewSummary ?? '(no summary)'}
          </p>
          <Questions questions={step.reviewQuestions} />
          <DecisionForm stepId={step.id} subject={`step ${step.order}`} />
        </div>
      ) : null}
    </li>
  );
}
