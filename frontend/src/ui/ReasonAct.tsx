/** An act that needs a reason (reject, cancel) and the errors a mutation answered with, in words. */
import { type ReactNode, useId, useRef, useState } from 'react';

export function Errors({ errors }: { errors: readonly string[] }) {
  if (!errors.length) return null;
  return (
    <div className="error" role="alert">
      {errors.map((message) => (
        <p key={message}>{message}</p>
      ))}
    </div>
  );
}

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

/** A toggle that opens a form asking for the reason. */
export function ReasonAct({ text, name, question, hint, submit, subject, busy, onSubmit, children }: ReasonActProps) {
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
