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

export function GateForm({ stepId, onDecided }: { stepId: string; onDecided?: (d: GateDecided) => void }) {
  const { http } = useConnection();
  const refreshGates = useRefreshGates();
  return (
    <ChoiceForm
      choices={CHOICES}
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
