/**
 * A person's decision on a proposal: approve (accept, for an asset), or reject with a reason the agent
 * reads; and a person's acts on a hop (start it, cancel it with a reason). userErrors come back in
 * words; the new states come back to the caller.
 */
import { type ReactNode, useId, useRef, useState } from 'react';

import { useConnection } from '../../core/connection';
import type { GraphQLHttp } from '../../core/http';
import { describeFailure, describeUserError } from '../../core/userErrors';
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

interface ReasonActProps {
  /** The toggle's text and its accessible name. */
  text: string;
  name: string;
  question: string;
  hint: string;
  submit: string;
  /** What the act is on, added (for screen readers) to the form's controls so each name is unique. */
  subject: string;
  busy: boolean;
  /** Sends the trimmed reason (an empty one too: the server refuses it in words); true if accepted. */
  onSubmit: (reason: string) => Promise<boolean>;
  /** Buttons shown before the toggle (Approve). */
  children?: ReactNode;
}

/** An act that needs a reason (reject, cancel): a toggle that opens a form asking for it. */
function ReasonAct({ text, name, question, hint, submit, subject, busy, onSubmit, children }: ReasonActProps) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const reasonId = useId();
  const hintId = useId();
  const toggle = useRef<HTMLButtonElement>(null);
  async function send() {
    if (!(await onSubmit(reason.trim()))) return;
    setOpen(false);
    setReason('');
  }
  return (
    <>
      <div className="decision-buttons">
        {children}
        <button
          type="button"
          ref={toggle}
          className="decision-reject"
          disabled={busy}
          aria-expanded={open}
          aria-label={name}
          onClick={() => setOpen((was) => !was)}
        >
          {text}
        </button>
      </div>
      {open ? (
        <form
          className="reject-form"
          onSubmit={(e) => {
            e.preventDefault();
            void send();
          }}
        >
          <label htmlFor={reasonId}>
            {question}
            <span className="sr-only"> ({subject})</span>
          </label>
          <textarea
            id={reasonId}
            rows={2}
            value={reason}
            aria-describedby={hintId}
            onChange={(e) => setReason(e.target.value)}
            autoFocus
          />
          <p id={hintId} className="hint">
            {hint}
          </p>
          <div className="decision-buttons">
            <button type="submit" className="decision-reject" disabled={busy}>
              {submit}
              <span className="sr-only"> ({subject})</span>
            </button>
            <button
              type="button"
              disabled={busy}
              onClick={() => {
                setOpen(false);
                toggle.current?.focus();
              }}
            >
              Cancel<span className="sr-only"> {text.replace('…', '').toLowerCase()} {subject}</span>
            </button>
          </div>
        </form>
      ) : null}
    </>
  );
}

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
