/** Approve, modify (with feedback), skip or reject one step awaiting input; userErrors in words. */
import { useId, useState } from 'react';

import { useConnection } from '../../app/connection';
import { describeFailure, describeUserError } from '../../core/userErrors';
import { DECIDE, type DecideResult, type Decision } from './api';

export interface Decided {
  decision: Decision;
  stepStatus: string;
  planStatus: string;
}

const LABELS: Record<Decision, string> = { APPROVE: 'Approve', MODIFY: 'Modify', SKIP: 'Skip', REJECT: 'Reject' };
const ORDER: Decision[] = ['APPROVE', 'MODIFY', 'SKIP', 'REJECT'];

export function DecisionForm({ stepId, onDecided }: { stepId: string; onDecided?: (d: Decided) => void }) {
  const { http, report } = useConnection();
  const [feedback, setFeedback] = useState('');
  const [busy, setBusy] = useState<Decision | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const feedbackId = useId();
  const hintId = useId();

  async function decide(decision: Decision) {
    setBusy(decision);
    setErrors([]);
    try {
      const text = feedback.trim();
      const result = await http.request<DecideResult>(DECIDE, { stepId, decision, feedback: text || null });
      const payload = result.submitUserDecision;
      if (payload.userErrors.length) {
        setErrors(payload.userErrors.map(describeUserError));
      } else if (payload.step && payload.plan) {
        setFeedback('');
        onDecided?.({ decision, stepStatus: payload.step.status, planStatus: payload.plan.status });
      }
    } catch (error) {
      report(error);
      setErrors([describeFailure(error)]);
    } finally {
      setBusy(null);
    }
  }

  return (
    <form className="decision" onSubmit={(e) => e.preventDefault()} aria-label="Your decision">
      <label htmlFor={feedbackId}>Feedback for the agent</label>
      <textarea
        id={feedbackId}
        rows={2}
        value={feedback}
        aria-describedby={hintId}
        onChange={(e) => setFeedback(e.target.value)}
      />
      <p id={hintId} className="hint">
        Required for Modify (it is appended to the step's instructions); with Reject it is kept as the reason.
      </p>
      <div className="decision-buttons">
        {ORDER.map((decision) => (
          <button
            key={decision}
            type="button"
            className={`decision-${decision.toLowerCase()}`}
            disabled={busy !== null}
            onClick={() => void decide(decision)}
          >
            {busy === decision ? `${LABELS[decision]}…` : LABELS[decision]}
          </button>
        ))}
      </div>
      {errors.length ? (
        <div className="error" role="alert">
          {errors.map((message) => (
            <p key={message}>{message}</p>
          ))}
        </div>
      ) : null}
    </form>
  );
}
