/**
 * A person's decision: an optional note and one button per choice. The caller sends it and returns the
 * mutation's userErrors (empty when it went through); refusals and failures are shown in words.
 */
import { useId, useState } from 'react';

import { useConnection } from '../core/connection';
import { describeFailure, describeUserError, type UserError } from '../core/userErrors';

export interface Choice<D extends string> {
  value: D;
  label: string;
}

interface Props<D extends string> {
  choices: readonly Choice<D>[];
  noteLabel: string;
  hint: string;
  /** What is decided on, unique on the page ("step 2 of “Cold batteries”"): it names the form and each control. */
  subject: string;
  /** Send the decision; resolve to its userErrors. */
  decide(decision: D, note: string): Promise<readonly UserError[]>;
}

export function ChoiceForm<D extends string>({ choices, noteLabel, hint, subject, decide }: Props<D>) {
  const { report } = useConnection();
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState<D | null>(null);
  const [errors, setErrors] = useState<string[]>([]);
  const noteId = useId();
  const hintId = useId();

  async function choose(decision: D) {
    setBusy(decision);
    setErrors([]);
    try {
      const refused = await decide(decision, note.trim());
      if (refused.length) setErrors(refused.map(describeUserError));
      else setNote('');
    } catch (error) {
      report(error);
      setErrors([describeFailure(error)]);
    } finally {
      setBusy(null);
    }
  }

  return (
    <form className="decision" onSubmit={(e) => e.preventDefault()} aria-label={`Your decision on ${subject}`}>
      <label htmlFor={noteId}>
        {noteLabel}
        <span className="sr-only"> on {subject}</span>
      </label>
      <textarea id={noteId} rows={2} value={note} aria-describedby={hintId} onChange={(e) => setNote(e.target.value)} />
      <p id={hintId} className="hint">
        {hint}
      </p>
      <div className="decision-buttons">
        {choices.map(({ value, label }) => (
          <button
            key={value}
            type="button"
            className={`decision-${value.toLowerCase()}`}
            disabled={busy !== null}
            onClick={() => void choose(value)}
          >
            {busy === value ? `${label}…` : label}
            <span className="sr-only"> {subject}</span>
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
