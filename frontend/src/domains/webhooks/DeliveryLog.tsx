/**
 * One endpoint's delivery log, newest event first, read again every few seconds while it is open:
 * status, attempts, the last answer; each event's attempts on demand; redelivery of one event or a range.
 */
import { Fragment, useCallback, useEffect, useId, useState, type FormEvent } from 'react';

import { useConnection } from '../../core/connection';
import { formatTime } from '../../core/format';
import {
  RedeliverWebhookEventsDocument,
  WebhookAttemptsDocument,
  WebhookDeliveriesDocument,
  type WebhookAttemptsQuery,
  type WebhookDeliveriesQuery,
  type WebhookEndpointFieldsFragment,
} from '../../core/graphql.generated';
import { describeFailure, describeUserError, words } from '../../core/userErrors';
import { lastAnswer, parseRange, topicLabel } from './topics';

type Delivery = NonNullable<WebhookDeliveriesQuery['webhookDeliveries']>['edges'][number]['node'];
type Attempt = WebhookAttemptsQuery['webhookAttempts'][number];

const PAGE = 50;
const REFRESH_MS = 2000;

export function DeliveryLog({ endpoint }: { endpoint: WebhookEndpointFieldsFragment }) {
  const { http, report } = useConnection();
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [attempts, setAttempts] = useState<Record<number, Attempt[]>>({});

  const load = useCallback(async () => {
    try {
      const r = await http.request(WebhookDeliveriesDocument, { endpointId: endpoint.id, first: PAGE });
      setDeliveries(r.webhookDeliveries?.edges.map((e) => e.node) ?? []);
      setTotal(r.webhookDeliveries?.totalCount ?? 0);
      setError(null);
    } catch (e) {
      report(e);
      setError(describeFailure(e));
    }
  }, [http, endpoint.id, report]);

  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  async function toggleAttempts(seq: number) {
    if (attempts[seq]) {
      setAttempts(({ [seq]: _, ...rest }) => rest);
      return;
    }
    try {
      const r = await http.request(WebhookAttemptsDocument, { endpointId: endpoint.id, seq });
      setAttempts((all) => ({ ...all, [seq]: r.webhookAttempts }));
    } catch (e) {
      report(e);
      setError(describeFailure(e));
    }
  }

  async function redeliver(fromSeq: number, toSeq: number | null): Promise<string | null> {
    try {
      const r = await http.request(RedeliverWebhookEventsDocument, { id: endpoint.id, fromSeq, toSeq });
      const refused = r.redeliverWebhookEvents.userErrors;
      if (refused.length) return refused.map(describeUserError).join(' ');
      const queued = r.redeliverWebhookEvents.queued ?? 0;
      const what = toSeq === null ? `event ${fromSeq}` : `events ${fromSeq}–${toSeq}`;
      setNotice(`Redelivery of ${what}: ${queued} deliver${queued === 1 ? 'y' : 'ies'} queued.`);
      setAttempts({});
      await load();
      return null;
    } catch (e) {
      report(e);
      return describeFailure(e);
    }
  }

  return (
    <section aria-labelledby="delivery-log-title" data-testid="delivery-log">
      <h2 id="delivery-log-title">
        Delivery log of <span className="webhook-url">{endpoint.url}</span>
      </h2>
      {error ? (
        <p className="error" role="alert">
          Could not load the deliveries: {error}
        </p>
      ) : null}
      {notice ? (
        <p role="status" data-testid="redeliver-notice">
          {notice}
        </p>
      ) : null}
      <RangeForm redeliver={redeliver} />
      {deliveries === null && !error ? <p>Loading…</p> : null}
      {deliveries?.length === 0 ? <p className="card empty-small">Nothing delivered to this endpoint yet.</p> : null}
      {deliveries?.length ? (
        <>
          <p id="delivery-log-caption" className="meta">
            {total} deliver{total === 1 ? 'y' : 'ies'}, the newest event first
            {total > deliveries.length ? ` (the first ${deliveries.length} shown)` : ''}; read again every few seconds
          </p>
          <div className="table-scroll">
            <table className="webhook-table" aria-describedby="delivery-log-caption">
            <thead>
              <tr>
                <th scope="col">Seq</th>
                <th scope="col">Topic</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Next attempt</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <Fragment key={d.seq}>
                  <tr data-delivery-seq={d.seq} data-status={d.status}>
                    <td>{d.seq}</td>
                    <td>{topicLabel(d.topic)}</td>
                    <td>
                      <span className={`badge badge-${d.status === 'DELIVERED' ? 'succeeded' : d.status === 'FAILED' ? 'failed' : 'pending'}`}>
                        {words(d.status)}
                      </span>
                    </td>
                    <td>{d.attempts}</td>
                    <td data-testid="last-answer">{lastAnswer(d)}</td>
                    <td>{d.nextAttemptAt ? formatTime(d.nextAttemptAt) : '–'}</td>
                    <td className="webhook-controls">
                      <button type="button" aria-expanded={Boolean(attempts[d.seq])} onClick={() => void toggleAttempts(d.seq)}>
                        Attempts<span className="sr-only"> of event {d.seq}</span>
                      </button>
                      <button
                        type="button"
                        onClick={() =>
                          void redeliver(d.seq, null).then((problem) => {
                            if (problem) setError(problem);
                          })
                        }
                      >
                        Redeliver<span className="sr-only"> event {d.seq}</span>
                      </button>
                    </td>
                  </tr>
                  {attempts[d.seq] ? (
                    <tr data-attempts-of={d.seq}>
                      <td colSpan={7}>
                        <AttemptList seq={d.seq} attempts={attempts[d.seq] ?? []} />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              ))}
            </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}

function AttemptList({ seq, attempts }: { seq: number; attempts: readonly Attempt[] }) {
  if (!attempts.length) return <p className="meta">No attempt since the last redelivery of event {seq}.</p>;
  return (
    <ol aria-label={`Attempts to deliver event ${seq}`} className="attempts">
      {attempts.map((a) => (
        <li key={`${a.attempt}-${a.createdAt}`} data-attempt={a.attempt}>
          Attempt {a.attempt}: {a.statusCode != null ? `HTTP ${a.statusCode}` : (a.error ?? 'no answer')}{' '}
          {a.succeeded ? '(delivered)' : '(failed)'} in {Math.round(a.latencyMs)} ms · {formatTime(a.createdAt)}
        </li>
      ))}
    </ol>
  );
}

function RangeForm({ redeliver }: { redeliver(fromSeq: number, toSeq: number | null): Promise<string | null> }) {
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const fromId = useId();
  const toId = useId();

  async function submit(event: FormEvent) {
    event.preventDefault();
    const range = parseRange(from, to);
    if (typeof range === 'string') {
      setProblem(range);
      return;
    }
    setProblem(await redeliver(range.fromSeq, range.toSeq));
  }

  return (
    <form className="webhook-controls" aria-label="Redeliver a range of events" onSubmit={(e) => void submit(e)}>
      <label htmlFor={fromId}>First seq</label>
      <input id={fromId} inputMode="numeric" size={8} value={from} onChange={(e) => setFrom(e.target.value)} />
      <label htmlFor={toId}>Last seq (optional)</label>
      <input id={toId} inputMode="numeric" size={8} value={to} onChange={(e) => setTo(e.target.value)} />
      <button type="submit">Redeliver the range</button>
      {problem ? (
        <p className="error" role="alert">
          {problem}
        </p>
      ) : null}
    </form>
  );
}
