/** Approve, modify (with feedback), skip or reject one step awaiting input. */
import { useConnection } from '../../core/connection';
import { DecideDocument, type PlanStatus, type StepStatus } from '../../core/graphql.generated';
import { ChoiceForm, type Choice } from '../../ui/ChoiceForm';
import type { Decision } from './api';

export interface Decided {
  decision: Decision;
  stepStatus: StepStatus;
  planStatus: PlanStatus;
}

const CHOICES: Choice<Decision>[] = [
  { value: 'APPROVE', label: 'Approve' },
  { value: 'MODIFY', label: 'Modify' },
  { value: 'SKIP', label: 'Skip' },
  { value: 'REJECT', label: 'Reject' },
];

interface Props {
  stepId: string;
  /** The step in words, unique on the page: "step 2 of “Cold batteries”". */
  subject: string;
  onDecided?: (d: Decided) => void;
}

export function DecisionForm({ stepId, subject, onDecided }: Props) {
  const { http } = useConnection();
  return (
    <ChoiceForm
      choices={CHOICES}
      subject={subject}
      noteLabel="Feedback for the agent"
      hint="Required for Modify (it is appended to the step's instructions); with Reject it is kept as the reason."
      decide={async (decision, feedback) => {
        const result = await http.request(DecideDocument, { stepId, decision, feedback: feedback || null });
        const payload = result.submitUserDecision;
        if (!payload.userErrors.length && payload.step && payload.plan) {
          onDecided?.({ decision, stepStatus: payload.step.status, planStatus: payload.plan.status });
        }
        return payload.userErrors;
      }}
    />
  );
}
