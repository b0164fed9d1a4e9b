/**
 * Bulk approve / reject for one section of the Reviews page: a checkbox on each item, one for all of
 * them on the page and, once those are all ticked and more wait on other pages, one for the whole group;
 * two buttons open a confirmation dialog listing what will be decided (a reason is required to reject).
 * The whole group is read from the server page by page when the decision is confirmed. The decisions go
 * as one decideReviews request per PER_REQUEST of them (each item in its own transaction there), with
 * the progress shown; what the server refuses is listed in words, the rest goes through.
 */
import { useEffect, useId, useRef, useState } from 'react';

import { decideInParts, type BulkTarget } from './bulkRun';
import { allToggled, nothingPicked, offersWholeGroup, picksNow, toggled, wholeGroupPicked } from './picks';
import { useConnection } from '../core/connection';
import { DecideReviewsDocument } from '../core/graphql.generated';
import { describeFailure } from '../core/userErrors';

export type { BulkTarget } from './bulkRun';

/** Decisions per request: the server's page cap bounds one decideReviews call. */
const PER_REQUEST = 50;

/**
 * Which items are ticked; keys no longer listed drop out. `scope` names the page shown (its place and
 * size): when it changes, nothing is ticked any more, the whole group included.
 */
export function useSelection(listed: readonly string[], scope = '') {
  const [picks, setPicks] = useState(() => nothingPicked(scope));
  if (picks.scope !== scope) setPicks(nothingPicked(scope));
  const now = picksNow(picks, listed, scope);
  return {
    selected: now.selected,
    /** Every item waiting in the group is chosen, not only the page's. */
    wholeGroup: now.wholeGroup,
    toggle(key: string, on: boolean) {
      setPicks((was) => toggled(was, listed, scope, key, on));
    },
    setAll(on: boolean) {
      setPicks(allToggled(listed, scope, on));
    },
    selectWholeGroup() {
      setPicks(wholeGroupPicked(listed, scope));
    },
    clear() {
      setPicks(nothingPicked(scope));
    },
  };
}

export type Selection = ReturnType<typeof useSelection>;

/** Reads every item waiting in the group; `onRead` is told how many so far. */
export type GroupRead = (onRead: (count: number) => void) => Promise<readonly BulkTarget[]>;

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
  /** Reads the whole group, when it is paged: offered once every item of the page is ticked. */
  readGroup?: GroupRead;
  selection: Selection;
  /** Called once after a bulk decision with the targets decided (re-read the list). */
  onDone(decided: readonly BulkTarget[]): void;
}

interface Report {
  approve: boolean;
  done: number;
  refused: { label: string; why: string }[];
  /** Why nothing was decided, when the group could not be read. */
  failed?: string;
}

interface Progress {
  /** Reading the group's items (before any is decided) rather than deciding them. */
  reading: boolean;
  done: number;
  total: number;
}

export function BulkDecide({ what, targets, total, readGroup, selection, onDone }: Props) {
  const { http, report: reportFailure } = useConnection();
  const [progress, setProgress] = useState<Progress | null>(null);
  const chosen = targets.filter((t) => selection.selected.has(t.key));
  const wholeGroup = selection.wholeGroup && readGroup !== undefined && total !== undefined;
  // What the buttons and the dialog count: the whole group, or the items ticked on the page.
  const count = wholeGroup ? total : chosen.length;
  const [asking, setAsking] = useState<boolean | null>(null);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [result, setResult] = useState<Report | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const reasonId = useId();
  const allChecked = targets.length > 0 && chosen.length === targets.length;
  const offerGroup =
    readGroup !== undefined && offersWholeGroup(selection, targets.length, total) && total !== undefined;

  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (asking !== null && !el.open) el.showModal();
    if (asking === null && el.open) el.close();
  }, [asking]);

  function finish(report: Report, decided: readonly BulkTarget[]) {
    setProgress(null);
    setBusy(false);
    setResult(report);
    setAsking(null);
    setReason('');
    selection.clear();
    onDone(decided);
  }

  async function confirm() {
    if (asking === null) return;
    const approve = asking;
    setBusy(true);
    const text = reason.trim();
    let decide: readonly BulkTarget[] = chosen;
    if (wholeGroup && readGroup) {
      setProgress({ reading: true, done: 0, total: count });
      try {
        decide = await readGroup((n) => setProgress({ reading: true, done: n, total: Math.max(n, count) }));
      } catch (error) {
        reportFailure(error);
        const failed = `Could not read the ${what} waiting: ${describeFailure(error)}`;
        finish({ approve, done: 0, refused: [], failed }, []);
        return;
      }
    }
    setProgress({ reading: false, done: 0, total: decide.length });
    const outcome = await decideInParts(
      decide,
      PER_REQUEST,
      (part) =>
        http
          .request(DecideReviewsDocument, {
            decisions: part.map((t) => ({ kind: t.kind, id: t.id, approve, reason: text || null })),
          })
          .then((answer) => answer.decideReviews),
      (done) => setProgress({ reading: false, done, total: decide.length }),
      reportFailure,
    );
    finish({ approve, done: outcome.decided.length, refused: outcome.refused }, outcome.decided);
  }

  if (targets.length < 2 && !chosen.length && !result && asking === null) return null;
  const verb = asking ? 'Approve' : 'Reject';
  const needsReason = asking === false;
  const selectedWords = wholeGroup ? `all ${count.toLocaleString()} waiting ${what}` : `${count} selected ${what}`;
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
          {offerGroup ? (
            <button type="button" className="link-button" onClick={selection.selectWholeGroup}>
              Select all {total.toLocaleString()} waiting {what}
            </button>
          ) : null}
          {wholeGroup ? (
            <>
              <span role="status" data-testid="bulk-whole-group">
                All {count.toLocaleString()} waiting {what} are selected, those on other pages too.
              </span>
              <button type="button" className="link-button" onClick={selection.clear}>
                Clear the selection<span className="sr-only"> of {what}</span>
              </button>
            </>
          ) : null}
          {/* Offered once something is ticked, so an idle page is not crowded with disabled buttons. */}
          {chosen.length ? (
            <>
              <button type="button" className="decision-approve" onClick={() => setAsking(true)}>
                Approve {selectedWords}…
              </button>
              <button type="button" className="decision-reject" onClick={() => setAsking(false)}>
                Reject {selectedWords}…
              </button>
            </>
          ) : null}
        </div>
      ) : null}
      {result ? (
        <div
          className={result.refused.length || result.failed ? 'error' : 'bulk-done'}
          role="status"
          data-testid="bulk-result"
        >
          {result.failed ? (
            <p>{result.failed}</p>
          ) : (
            <p>
              {result.approve ? 'Approved' : 'Rejected'} {result.done} of {result.done + result.refused.length}.
            </p>
          )}
          {result.refused.map((r, i) => (
            <p key={i}>
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
            {verb} {wholeGroup ? `all ${count.toLocaleString()} waiting` : count} {what}?
          </h3>
          <ul className="bulk-list">
            {chosen.map((t) => (
              <li key={t.key}>{t.label}</li>
            ))}
            {wholeGroup && count > chosen.length ? (
              <li>
                and {(count - chosen.length).toLocaleString()} more on other pages (read when you confirm; any
                that arrive meanwhile are included)
              </li>
            ) : null}
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
              <progress
                value={progress.done}
                max={progress.total}
                aria-label={progress.reading ? `${what} read so far` : 'Decided so far'}
              />{' '}
              {progress.reading
                ? `Reading the waiting ${what}: ${progress.done.toLocaleString()} of ${progress.total.toLocaleString()}…`
                : `Decided ${progress.done.toLocaleString()} of ${progress.total.toLocaleString()}…`}
            </p>
          ) : null}
          <div className="decision-buttons">
            <button type="submit" className={asking ? 'decision-approve' : 'decision-reject'} disabled={busy}>
              {busy ? `${verb === 'Approve' ? 'Approving' : 'Rejecting'}…` : `${verb} all ${count.toLocaleString()}`}
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
