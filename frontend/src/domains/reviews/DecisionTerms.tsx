/**
 * The top of the Reviews page: every open decision with its assignee, a countdown to its deadline and
 * the default that will apply then, and an "escalated" mark; "mine" narrows it to the key's own
 * (decisionInbox(mine: true)). Decision events refresh it; a deadline applied while the page is open
 * shows in "Settled while you watched".
 */
import { useCallback, useEffect, useState } from 'react';

import { useConnection } from '../../core/connection';
import { formatTime } from '../../core/format';
import {
  DecisionByIdDocument,
  DecisionInboxDocument,
  DecisionRootsDocument,
  EventsDocument,
  LatestSeqDocument,
} from '../../core/graphql.generated';
import { useNow } from '../../core/hooks';
import { subscribeFromSeq } from '../../core/resumable';
import { href } from '../../core/router';
import { describeFailure, words } from '../../core/userErrors';
import {
  byDeadline,
  countdown,
  DECISION_EVENT_KINDS,
  describeAssignee,
  describeEnd,
  describeKind,
  rootName,
  rootPath,
  type Decision,
} from './terms';

const PAGE = 100;
/** Shown until the reader asks for all: the nearest deadlines; each group below shows its own. */
const SHOWN = 5;

interface DecisionEvent {
  seq: number;
  kind: string;
  entityId: string;
}

export function DecisionTerms() {
  const { http, live, report } = useConnection();
  const [mine, setMine] = useState(false);
  const [decisions, setDecisions] = useState<Decision[] | null>(null);
  const [total, setTotal] = useState(0);
  const [settled, setSettled] = useState<Decision[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [showAll, setShowAll] = useState(false);
  // What each root (plan, mission, workflow) is called, by id; asked for once per root.
  const [names, setNames] = useState<Record<string, string>>({});
  const now = useNow();

  const nameRoots = useCallback(
    async (shown: readonly Decision[], known: Record<string, string>) => {
      const ids = [...new Set(shown.map((d) => d.rootId))].filter((id) => !(id in known)).slice(0, PAGE);
      if (!ids.length) return;
      const { nodes } = await http.request(DecisionRootsDocument, { ids });
      const found: Record<string, string> = {};
      ids.forEach((id, i) => {
        found[id] = rootName(nodes[i] ?? null) ?? '';
      });
      setNames((all) => ({ ...all, ...found }));
    },
    [http],
  );

  useEffect(() => {
    void nameRoots([...(decisions ?? []), ...settled], names).catch(() => {});
    // `names` only filters out roots already named (not a dependency: naming one needs no new request).
  }, [decisions, settled, nameRoots]);

  const load = useCallback(async () => {
    try {
      const result = await http.request(DecisionInboxDocument, { mine, first: PAGE });
      setDecisions(result.decisionInbox.edges.map((e) => e.node));
      setTotal(result.decisionInbox.totalCount);
      setError(null);
    } catch (e) {
      report(e);
      setError(describeFailure(e));
    }
  }, [http, mine, report]);

  useEffect(() => {
    let stream: { stop(): void } | null = null;
    let gone = false;
    const settle = async (id: string) => {
      const { decision } = await http.request(DecisionByIdDocument, { id });
      if (decision && !gone) setSettled((list) => [decision, ...list.filter((d) => d.id !== id)].slice(0, 20));
    };
    void (async () => {
      try {
        const { latestSeq } = await http.request(LatestSeqDocument);
        if (gone) return;
        stream = subscribeFromSeq(live, {
          operation: EventsDocument,
          field: 'events',
          variables: { filter: { kinds: DECISION_EVENT_KINDS } },
          after: latestSeq,
          onItem: (event: DecisionEvent) => {
            void load();
            if (event.kind === 'decision_deadline_applied' || event.kind === 'decision_made' || event.kind === 'decision_withdrawn') {
              void settle(event.entityId).catch(() => {});
            }
          },
          onError: setError,
        });
        await load();
      } catch (e) {
        report(e);
        setError(describeFailure(e));
      }
    })();
    return () => {
      gone = true;
      stream?.stop();
    };
  }, [http, live, load, report]);

  const sorted = byDeadline(decisions ?? []);
  return (
    <section aria-labelledby="decision-terms-title" className="review-section" data-testid="decision-terms">
      <div className="review-head">
        <h2 id="decision-terms-title">Deadlines and assignees</h2>
        <label className="check">
          <input type="checkbox" checked={mine} onChange={(e) => setMine(e.target.checked)} data-testid="mine-filter" />{' '}
          Only mine (assigned to this key or its role)
        </label>
      </div>
      {error ? (
        <p className="error" role="alert">
          Could not load the decisions: {error}
        </p>
      ) : null}
      {decisions === null && !error ? <p>Loading…</p> : null}
      {decisions?.length === 0 ? (
        <p className="card empty-small">{mine ? 'No open decision is assigned to you.' : 'No decision is waiting.'}</p>
      ) : null}
      {decisions?.length ? (
        <p className="meta" aria-live="polite" data-testid="decision-terms-summary">
          {total} open decision{total === 1 ? '' : 's'}
          {mine ? ' assigned to you' : ''}, the nearest deadline first
          {!showAll && sorted.length > SHOWN ? ` (the nearest ${SHOWN} shown)` : ''}
          {showAll && total > sorted.length ? ` (the nearest ${sorted.length} shown)` : ''}
        </p>
      ) : null}
      <ul className="inbox decision-terms" aria-label="Open decisions, the nearest deadline first">
        {(showAll ? sorted : sorted.slice(0, SHOWN)).map((d) => (
          <DecisionItem key={d.id} decision={d} now={now} name={names[d.rootId]} />
        ))}
      </ul>
      {sorted.length > SHOWN ? (
        <button type="button" className="show-more" aria-expanded={showAll} onClick={() => setShowAll(!showAll)}>
          {showAll ? `Show the nearest ${SHOWN} only` : `Show all ${sorted.length} open decisions`}
        </button>
      ) : null}
      {settled.length ? (
        <section aria-labelledby="settled-title">
          <h3 id="settled-title" className="settled-title">Settled while you watched</h3>
          <ul className="decided" aria-live="polite" data-testid="settled">
            {settled.map((d) => (
              <li key={d.id} className="card" data-settled-decision={d.id} data-status={d.status}>
                <strong>{describeKind(d.kind)}</strong> — {describeEnd(d)}
                {d.closedAt ? <span className="meta"> · {formatTime(d.closedAt)}</span> : null} <RootLink decision={d} name={names[d.rootId]} />
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </section>
  );
}

function RootLink({ decision, name }: { decision: Decision; name: string | undefined }) {
  const path = rootPath(decision);
  if (!path) return null;
  return (
    <a href={href(path)}>
      {name ? `${words(decision.rootType)} “${name}”` : `Open the ${words(decision.rootType)}`}
      <span className="sr-only">
        {' '}
        of {describeKind(decision.kind).toLowerCase()} {decision.id}
      </span>
    </a>
  );
}

function DecisionItem({ decision, now, name }: { decision: Decision; now: number; name: string | undefined }) {
  const left = countdown(decision.deadlineAt, now);
  const escalated = decision.status === 'ESCALATED';
  return (
    <li
      className="card review"
      data-decision={decision.id}
      data-status={decision.status}
      aria-label={`${describeKind(decision.kind)}, ${escalated ? 'escalated, ' : ''}assigned to ${describeAssignee(decision.assignee)}`}
    >
      <div className="status-line">
        <strong>{describeKind(decision.kind)}</strong>
        {escalated ? (
          <span className="badge badge-escalated" data-testid="escalated">
            escalated
          </span>
        ) : null}
        <RootLink decision={decision} name={name} />
      </div>
      <p className="meta">
        Assignee: <span data-testid="assignee">{describeAssignee(decision.assignee)}</span>
        {escalated && decision.escalatedAt ? ` (escalated ${formatTime(decision.escalatedAt)})` : null}
        {!escalated && decision.escalateAt && decision.escalationRole
          ? ` · escalates to any ${decision.escalationRole} ${countdown(decision.escalateAt, now) ?? ''}`
          : null}
      </p>
      <p className="meta" data-testid="deadline">
        {left ? (
          <>
            Deadline {formatTime(decision.deadlineAt)}: <strong className="countdown">{left}</strong>, then{' '}
            <strong>{words(decision.defaultOutcome)}</strong> applies
          </>
        ) : (
          'No deadline: it waits for an answer'
        )}{' '}
        · requested {formatTime(decision.createdAt)}
      </p>
    </li>
  );
}
