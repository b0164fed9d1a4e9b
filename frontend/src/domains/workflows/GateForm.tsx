/** Approve or reject a step waiting for a reviewer (an approval gate or a governance escalation). */
import { useConnection } from '../../core/connection';
import { ChoiceForm, type Choice } from '../../ui/ChoiceForm';
import {
  ApproveGateDocument,
  RejectGateDocument,
  type WorkflowStatus,
  type WorkflowStepStatus,
} from '../../core/graphql.generated';
import type { GateDecision, GateDecisionPayload } from './api';
import { useRefreshGates } from './context';

export interface GateDecided {
  decision: GateDecision;
  stepStatus: WorkflowStepStatus;
  workflowStatus: WorkflowStatus;
}

const CHOICES: Choice<GateDecision>[] = [
  { value: 'APPROVE', label: 'Approve' },
  { value: 'REJECT', label: 'Reject' },
];

interface Props {
  stepId: string;
  /** The step in words, unique on the page: "step “deploy” of “release”". */
  subject: string;
  onDecided?: (d: GateDecided) => void;
}

export function GateForm({ stepId, subject, onDecided }: Props) {
  const { http } = useConnection();
  const refreshGates = useRefreshGates();
  return (
    <ChoiceForm
      choices={CHOICES}
      subject={subject}
      noteLabel="Comment or reason"
      hint="Optional with Approve (kept as a comment); required with Reject (kept as the reason, the step fails and its onFailure applies)."
      decide={async (decision, note) => {
        let payload: GateDecisionPayload;
        if (decision === 'APPROVE') {
          const result = await http.request(ApproveGateDocument, { stepId, comment: note || null });
          payload = result.approveWorkflowStep;
        } else {
          const result = await http.request(RejectGateDocument, { stepId, reason: note });
          payload = result.rejectWorkflowStep;
        }
        if (!payload.userErrors.length && payload.step && payload.workflow) {
          refreshGates();
          onDecided?.({ decision, stepStatus: payload.step.status, workflowStatus: payload.workflow.status });
        }
        return payload.userErrors;
      }}
    />
  );
}
