/**
 * A person's controls on a whole workflow: cancel it with a reason, or run a finished one again as a
 * new workflow. Which ones show is the server's answer (`availableActions`), not a rule kept here.
 */
import { useState } from 'react';

import { offers, type AvailableAction } from '../../core/actions';
import { useConnection } from '../../core/connection';
import { CancelWorkflowDocument, RerunWorkflowDocument } from '../../core/graphql.generated';
import { href } from '../../core/router';
import { describeFailure, describeUserError, type UserError } from '../../core/userErrors';
import { Errors, ReasonAct } from '../../ui/ReasonAct';

interface Props {
  workflowId: string;
  name: string;
  available: readonly AvailableAction[];
}

export function WorkflowControls({ workflowId, name, available }: Props) {
  const { http, report } = useConnection();
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  const [rerunId, setRerunId] = useState<string | null>(null);
  const canCancel = offers(available, 'cancelWorkflow');
  const canRerun = offers(available, 'rerunWorkflow');
  if (!canCancel && !canRerun && !rerunId) return null;
  const label = `workflow “${name}”`;

  async function run<T extends { userErrors: readonly UserError[] }>(send: () => Promise<T>): Promise<T | null> {
    setBusy(true);
    setErrors([]);
    try {
      const payload = await send();
      if (payload.userErrors.length) {
        setErrors(payload.userErrors.map(describeUserError));
        return null;
      }
      return payload;
    } catch (error) {
      report(error);
      setErrors([describeFailure(error)]);
      return null;
    } finally {
      setBusy(false);
    }
  }

  async function rerun() {
    const payload = await run(async () => (await http.request(RerunWorkflowDocument, { workflowId })).rerunWorkflow);
    const id = payload?.workflow?.id;
    if (id) {
      setRerunId(id);
      window.location.hash = `#/workflows/${id}`;
    }
  }

  return (
    <div className="workflow-controls" role="group" aria-label={`Controls of ${label}`}>
      {canCancel ? (
        <ReasonAct
          text="Cancel workflow…"
          name={`Cancel ${label}…`}
          question="Why cancel this workflow?"
          hint="Required. Its running steps stop; it ends failed, or compensates when its failure policy is compensate. The reason is kept in its history."
          submit="Cancel the workflow with this reason"
          subject={label}
          busy={busy}
          onSubmit={async (reason) =>
            (await run(async () => (await http.request(CancelWorkflowDocument, { workflowId, reason })).cancelWorkflow)) !==
            null
          }
        />
      ) : null}
      {canRerun ? (
        <div className="decision-buttons">
          <button type="button" className="primary" disabled={busy} onClick={() => void rerun()}>
            {busy ? 'Starting…' : 'Run again as a new workflow'}
          </button>
        </div>
      ) : null}
      {rerunId ? (
        <p role="status">
          Started <a href={href(`/workflows/${rerunId}`)}>the new run</a>.
        </p>
      ) : null}
      <Errors errors={errors} />
    </div>
  );
}
