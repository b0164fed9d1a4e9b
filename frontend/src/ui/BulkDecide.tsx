/**
 * Bulk approve / reject for one section of the Reviews page: a checkbox on each item, one for all of
 * them, and two buttons that open a confirmation dialog listing what will be decided (a reason is
 * required to reject). The decisions go to the server as one decideReviews request per page of them
 * (each item in its own transaction there), with the progress shown; what the server refuses is listed
 * in words, the rest goes through.
 */
import { useEffect, useId, useRef, useState } from 'react';

import { useConnection } from '../core/connection';
import { DecideReviewsDocument, type ReviewKind } from '../core/graphql.generated';
import { describeFailure, describeUserError } from '../core/userErrors';

/** Decisions per request: the server's page cap bounds one decideReviews call. */
const PER_REQUEST = 50;

export interface BulkTarget {
  key: string;
  /** What is decided on, in words, unique on the page: "step 2 of “Cold batteries”". */
  label: string;
  /** What decideReviews decides on: its kind and id. */
  kind: ReviewKind;
  id: string;
}

/** Which items are ticked; keys no longer listed drop out. */
export function useSelection(listed: readonly string[]) {
  const [picked, setPicked] = useState<ReadonlySet<string>>(new Set());
  const present = new Set(listed);
  const selected = new Set([...picked].filter((k) => present.has(k)));
  return {
    selected,
    toggle(key: string, on: boolean) {
      setPicked((was) => {
        const next = new Set([...was].filter((k) => present.has(k)));
        if (on) next.add(key);
        else next.delete(key);
        return next;
      });
    },
    setAll(on: boolean) {
      setPicked(on ? new Set(listed) : new Set());
    },
    clear() {
      setPicked(new Set());
    },
  };
}

export type Selection = ReturnType<typeof useSelection>;

export function SelectBox({ selection, target }: { selection: Selection; target: Pick<BulkTarget, 'key' | 'label'> }) {
  return (
    <label className="select-box">
      <input
        type="checkbox"
        checked={selection.selected.has(target.key)}
        onChange={(e) => selection.toggle(target.key, e.target.checked)}
      />
      <span className="sr-only">Select {target.label}</span>
      <span aria-hidden="true">Select</span>
    </label>
  );
}

interface Props {
  /** The section's items in words, plural, for the controls' names: "plan steps", "workflow approvals". */
  what: string;
  targets: readonly BulkTarget[];
  /** How many wait in all, when the targets are one page of them. */
  total?: number;
  selection: Selection;
  /** Called once after a bulk decision with the targets decided (re-read the list). */
  onDone(decided: readonly BulkTarget[]): void;
}

interface Report {
  approve: boolean;
  done: number;
  refused: { label: string; why: string }[];
}

export function BulkDecide({ what, targets, total, selection, onDone }: Props) {
  const { http, report: reportFailure } = useConnection();
  const [progress, setProgress] = useState<{ done: number; total: number } | null>(null);
  const chosen = targets.filter((t) => selection.selected.has(t.key));
  const [asking, setAsking] = useState<boolean | null>(null);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Report | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const reasonId = useId();
  const allChecked = targets.length > 0 && chosen.length === targets.length;

  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (asking !== null && !el.open) el.showModal();
    if (asking === null && el.open) el.close();
  }, [asking]);

  async function confirm() {
    if (asking === null) return;
    const approve = asking;
    setBusy(true);
    const refused: Report['refused'] = [];
    const decided: BulkTarget[] = [];
    const text = reason.trim();
    setProgress({ done: 0, total: chosen.length });
    for (let start = 0; start < chosen.length; start += PER_REQUEST) {
      const part = chosen.slice(start, start + PER_REQUEST);
      try {
        const { decideReviews: answer } = await http.request(DecideReviewsDocument, {
          decisions: part.map((t) => ({ kind: t.kind, id: t.id, approve, reason: text || null })),
        });
        if (answer.userErrors.length) {
          const why = answer.userErrors.map(describeUserError).join(' ');
          part.forEach((t) => refused.push({ label: t.label, why }));
        }
        answer.results.forEach((r) => {
          const target = part[r.index];
          if (!target) return;
          if (r.decided) decided.push(target);
          else refused.push({ label: target.label, why: r.userErrors.map(describeUserError).join(' ') });
        });
      } catch (error) {
        reportFailure(error);
        part.forEach((t) => refused.push({ label: t.label, why: describeFailure(error) }));
      }
      setProgress({ done: Math.min(start + part.length, chosen.length), total: chosen.length });
    }
    const done = decided.length;
    setProgress(null);
    setBusy(false);
    setResult({ approve, done, refused });
    setAsking(null);
    setReason('');
    selection.clear();
    onDone(decided);
  }

  if (targets.length < 2 && !chosen.length && !result && asking === null) return null;
  const verb = asking ? 'Approve' : 'Reject';
  const needsReason = asking === false;
  return (
    <div className="bulk" role="group" aria-label={`Decide on several ${what} at once`}>
      {targets.length > 1 || chosen.length ? (
        <div className="bulk-bar">
          {targets.length > 1 ? (
            <label className="select-box">
              <input type="checkbox" checked={allChecked} onChange={(e) => selection.setAll(e.target.checked)} />
              {total !== undefined && total > targets.length
                ? `Select all ${targets.length} ${what} on this page (of ${total.toLocaleString()} waiting)`
                : `Select all ${targets.length} waiting ${what}`}
            </label>
          ) : null}
          {/* Offered once something is ticked, so an idle page is not crowded with disabled buttons. */}
          {chosen.length ? (
            <>
              <button type="button" className="decision-approve" onClick={() => setAsking(true)}>
                Approve {chosen.length} selected {what}…
              </button>
              <button type="button" className="decision-reject" onClick={() => setAsking(false)}>
                Reject {chosen.length} selected {what}…
              </button>
            </>
          ) : null}
        </div>
      ) : null}
      {result ? (
        <div className={result.refused.length ? 'error' : 'bulk-done'} role="status" data-testid="bulk-result">
          <p>
            {result.approve ? 'Approved' : 'Rejected'} {result.done} of {result.done + result.refused.length}.
          </p>
          {result.refused.map((r) => (
            <p key={r.label}>
              Not {result.approve ? 'approved' : 'rejected'}: {r.label} — {r.why}
            </p>
          ))}
        </div>
      ) : null}
      <dialog
        ref={dialog}
        className="bulk-dialog"
        aria-labelledby={titleId}
        onCancel={(e) => {
          if (busy) e.preventDefault();
          else setAsking(null);
        }}
      >
        <form
          method="dialog"
          onSubmit={(e) => {
            e.preventDefault();
            void confirm();
          }}
        >
          <h3 id={titleId}>
            {verb} {chosen.length} {what}?
          </h3>
          <ul className="bulk-list">
            {chosen.map((t) => (
              <li key={t.key}>{t.label}</li>
            ))}
          </ul>
          {asking !== null ? (
            <>
              <label htmlFor={reasonId}>{needsReason ? 'Reason (required, the same for each)' : 'Comment (optional)'}</label>
              <textarea
                id={reasonId}
                rows={2}
                value={reason}
                required={needsReason}
                onChange={(e) => setReason(e.target.value)}
              />
            </>
          ) : null}
          {progress ? (
            <p role="status" data-testid="bulk-progress">
              <progress value={progress.done} max={progress.total} aria-label="Decided so far" /> {progress.done} of{' '}
              {progress.total} decided…
            </p>
          ) : null}
          <div className="decision-buttons">
            <button type="submit" className={asking ? 'decision-approve' : 'decision-reject'} disabled={busy}>
              {busy ? `${verb === 'Approve' ? 'Approving' : 'Rejecting'}…` : `${verb} all ${chosen.length}`}
            </button>
            <button type="button" disabled={busy} onClick={() => setAsking(null)}>
              Cancel
            </button>
          </div>
        </form>
      </dialog>
    </div>
  );
}
