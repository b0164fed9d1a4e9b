/**
 * A person's decision on a proposal: approve (accept, for an asset), or reject with a reason the agent
 * reads; and a person's acts on a hop (start it, cancel it with a reason). userErrors come back in
 * words; the new states come back to the caller.
 */
import { useState } from 'react';

import { useConnection } from '../../core/connection';
import type { GraphQLHttp } from '../../core/http';
import { describeFailure, describeUserError } from '../../core/userErrors';
import { Errors, ReasonAct } from '../../ui/ReasonAct';
import { ACTS, cancelHop, startHop, type DecisionPayload, type ProposalKind } from './api';
import { useMissionChanged } from './context';

export interface Decided {
  approved: boolean;
  /** The new state of what was decided on (mission, hop or asset). */
  status: NonNullable<DecisionPayload['subject']>['status'];
  missionStatus: NonNullable<DecisionPayload['mission']>['status'] | null;
}

interface Props {
  kind: ProposalKind;
  id: string;
  missionId: string;
  /** What is decided on, for the buttons' accessible names: "mission “Cold batteries”". */
  label: string;
  onDecided?: (decided: Decided) => void;
}

/** Runs one mission mutation and puts its userErrors, or its failure, into words. */
function useMissionMutation(missionId: string) {
  const { http, report } = useConnection();
  const changed = useMissionChanged();
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<string[]>([]);
  async function run(send: (http: GraphQLHttp) => Promise<DecisionPayload>) {
    setBusy(true);
    setErrors([]);
    try {
      const payload = await send(http);
      if (payload.userErrors.length) {
        setErrors(payload.userErrors.map(describeUserError));
        return null;
      }
      changed(missionId);
      return payload;
    } catch (error) {
      report(error);
      setErrors([describeFailure(error)]);
      return null;
    } finally {
      setBusy(false);
    }
  }
  return { busy, errors, run };
}

const SUBJECT: Record<ProposalKind, string> = {
  mission: 'mission',
  hopPlan: 'hop',
  hopImplementation: 'hop',
  asset: 'asset',
};

export function ProposalDecision({ kind, id, missionId, label, onDecided }: Props) {
  const act = ACTS[kind];
  const { busy, errors, run } = useMissionMutation(missionId);
  const approveWord = kind === 'asset' ? 'Accept' : 'Approve';

  async function decide(approve: boolean, reason = ''): Promise<boolean> {
    const payload = await run((http) => (approve ? act.approve(http, id) : act.reject(http, id, reason)));
    const subject = payload?.subject;
    if (!payload || !subject) return false;
    onDecided?.({ approved: approve, status: subject.status, missionStatus: payload.mission?.status ?? null });
    return true;
  }

  return (
    <div className="proposal-decision" role="group" aria-label={`Your decision on ${label}`}>
      <ReasonAct
        text="Reject…"
        name={`Reject ${label}…`}
        question="Why reject it?"
        hint={`Required. The reason is kept with the ${SUBJECT[kind]} and the agent reads it.`}
        submit="Reject with this reason"
        subject={label}
        busy={busy}
        onSubmit={(reason) => decide(false, reason)}
      >
        <button
          type="button"
          className="decision-approve"
          disabled={busy}
          aria-label={`${approveWord} ${label}`}
          onClick={() => void decide(true)}
        >
          {approveWord}
        </button>
      </ReasonAct>
      <Errors errors={errors} />
    </div>
  );
}

/** Start a hop whose implementation is approved (see api.ts `startHop`). */
export function StartHop({ hopId, missionId, label }: { hopId: string; missionId: string; label: string }) {
  const { busy, errors, run } = useMissionMutation(missionId);
  return (
    <div className="proposal-decision">
      <button
        type="button"
        className="primary"
        disabled={busy}
        onClick={() => void run((http) => startHop(http, hopId))}
      >
        {busy ? 'Starting…' : `Start ${label}`}
      </button>
      <Errors errors={errors} />
    </div>
  );
}

/**
 * "User cancels" a hop (seed 004): offered while the hop is neither completed nor cancelled. Its
 * unfinished tool steps are cancelled with it and the mission is approved again for another hop.
 */
export function CancelHop({ hopId, missionId, label }: { hopId: string; missionId: string; label: string }) {
  const { busy, errors, run } = useMissionMutation(missionId);
  return (
    <div className="proposal-decision">
      <ReasonAct
        text="Cancel hop…"
        name={`Cancel ${label}…`}
        question="Why cancel this hop?"
        hint="Required. Its unfinished tool steps are cancelled with it, the mission is approved again for another hop, and the agent reads the reason."
        submit="Cancel the hop with this reason"
        subject={label}
        busy={busy}
        onSubmit={async (reason) => (await run((http) => cancelHop(http, hopId, reason))) !== null}
      />
      <Errors errors={errors} />
    </div>
  );
}
