/**
 * A person's decision on a proposal: approve (accept, for an asset), or reject with a reason the agent
 * reads. userErrors come back in words; the new states come back to the caller.
 */
import { useId, useRef, useState } from 'react';

import { useConnection } from '../../app/connection';
import { describeFailure, describeUserError } from '../../core/userErrors';
import { ACTS, decisionMutation, type DecisionPayload, type ProposalKind } from './api';
import { useMissionChanged } from './context';

export interface Decided {
  approved: boolean;
  /** The new state of what was decided on (mission, hop or asset). */
  status: string;
  missionStatus: string | null;
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
  async function run(mutation: string, field: string, variables: Record<string, unknown>) {
    setBusy(true);
    setErrors([]);
    try {
      const result = await http.request<Record<string, DecisionPayload>>(mutation, variables);
      const payload = result[field];
      if (!payload) throw new Error(`The server sent no ${field} result.`);
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

function Errors({ errors }: { errors: readonly string[] }) {
  if (!errors.length) return null;
  return (
    <div className="error" role="alert">
      {errors.map((message) => (
        <p key={message}>{message}</p>
      ))}
    </div>
  );
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
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState('');
  const reasonId = useId();
  const hintId = useId();
  const toggle = useRef<HTMLButtonElement>(null);
  const approveWord = kind === 'asset' ? 'Accept' : 'Approve';

  async function decide(approve: boolean) {
    const mutation = approve ? act.approve : act.reject;
    const variables: Record<string, unknown> = approve ? { id } : { id, reason: reason.trim() };
    const payload = await run(decisionMutation(mutation, act.arg, act.subject, !approve), mutation, variables);
    const subject = payload?.[act.subject];
    if (!payload || !subject) return;
    setRejecting(false);
    setReason('');
    onDecided?.({ approved: approve, status: subject.status, missionStatus: payload.mission?.status ?? null });
  }

  return (
    <div className="proposal-decision" role="group" aria-label={`Your decision on ${label}`}>
      <div className="decision-buttons">
        <button
          type="button"
          className="decision-approve"
          disabled={busy}
          aria-label={`${approveWord} ${label}`}
          onClick={() => void decide(true)}
        >
          {approveWord}
        </button>
        <button
          type="button"
          ref={toggle}
          className="decision-reject"
          disabled={busy}
          aria-expanded={rejecting}
          aria-label={`Reject ${label}…`}
          onClick={() => setRejecting((open) => !open)}
        >
          Reject…
        </button>
      </div>
      {rejecting ? (
        <form
          className="reject-form"
          onSubmit={(e) => {
            e.preventDefault();
            void decide(false);
          }}
        >
          <label htmlFor={reasonId}>Why reject it?</label>
          <textarea
            id={reasonId}
            rows={2}
            value={reason}
            aria-describedby={hintId}
            onChange={(e) => setReason(e.target.value)}
            autoFocus
          />
          <p id={hintId} className="hint">
            Required. The reason is kept with the {SUBJECT[kind]} and the agent reads it.
          </p>
          <div className="decision-buttons">
            <button type="submit" className="decision-reject" disabled={busy}>
              Reject with this reason
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setRejecting(false);
                toggle.current?.focus();
              }}
            >
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      <Errors errors={errors} />
    </div>
  );
}

const START_HOP = `mutation StartHop($id: ID!) { startHop(hopId: $id) {
  hop { id status } mission { id status } userErrors { code message field entity fromState toState } } }`;

/** "User starts hop execution" (seed 004): a reviewer's act, offered once the implementation is approved. */
export function StartHop({ hopId, missionId, label }: { hopId: string; missionId: string; label: string }) {
  const { busy, errors, run } = useMissionMutation(missionId);
  return (
    <div className="proposal-decision">
      <button
        type="button"
        className="primary"
        disabled={busy}
        onClick={() => void run(START_HOP, 'startHop', { id: hopId })}
      >
        {busy ? 'Starting…' : `Start ${label}`}
      </button>
      <Errors errors={errors} />
    </div>
  );
}
