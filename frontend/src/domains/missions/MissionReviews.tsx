/**
 * The missions' part of the Reviews page: proposed missions, hop plans, hop implementations and assets
 * waiting for a person, one list in waiting order read a page at a time from `missionReviews` (the
 * server filters by kind, text and waiting time, pages by cursor and counts); the view lives in the URL
 * (reviewView.ts). Each item has approve and reject (with a reason); the page is read again after every
 * mission event (the live list's review count is read then too).
 */
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';

import { useConnection } from '../../core/connection';
import {
  MissionReviewsDocument,
  MissionSummaryDocument,
  type MissionReviewKind,
  type MissionReviewsQuery,
  type ReviewKind,
} from '../../core/graphql.generated';
import { useHashQuery, useNow } from '../../core/hooks';
import { href } from '../../core/router';
import { BulkDecide, useSelection } from '../../ui/BulkDecide';
import { ReviewMeta, ReviewRow, RowsOpenUpTo } from '../../ui/ReviewPages';
import { StatusBadge } from '../../ui/StatusBadge';
import { type MissionReview, type MissionSummary, type ProposalKind } from './api';
import { useMissionChanged, useMissionReviews } from './context';
import { ProposalDecision, type Decided } from './Decision';
import {
  changedView,
  formatReviewView,
  isFiltered,
  parseReviewView,
  REVIEW_KINDS,
  reviewVariables,
  type ReviewListOrder,
  type ReviewView,
} from './reviewView';
import { describeTtl, ttlDeadline } from './ttl';

type ProposalPage = MissionReviewsQuery['missionReviews'];

interface Item {
  kind: ProposalKind;
  id: string;
  missionId: string;
  /** "mission “x”", "the plan of hop 1 “y”", ... */
  label: string;
  title: ReactNode;
  since: string;
  decision: MissionReview['openDecision'];
  body: ReactNode;
}

interface DecidedItem extends Decided {
  key: number;
  kind: ProposalKind;
  id: string;
  missionId: string;
  label: string;
}

/** decideReviews' word for each kind of proposal. */
const REVIEW_KIND: Record<ProposalKind, ReviewKind> = {
  mission: 'MISSION',
  hopPlan: 'HOP_PLAN',
  hopImplementation: 'HOP_IMPLEMENTATION',
  asset: 'ASSET',
};

const KIND_TITLE: Record<ProposalKind, string> = {
  mission: 'Mission proposal',
  hopPlan: 'Hop plan',
  hopImplementation: 'Hop implementation',
  asset: 'Asset',
};

const KIND: Record<MissionReviewKind, ProposalKind> = {
  MISSION: 'mission',
  HOP_PLAN: 'hopPlan',
  HOP_IMPLEMENTATION: 'hopImplementation',
  ASSET: 'asset',
};

const ORDER_WORDS: Record<ReviewListOrder, string> = {
  deadline: 'the nearest deadline',
  oldest: 'the longest waiting',
  newest: 'the most recent',
};

const KIND_FILTER: Record<MissionReviewKind, string> = {
  MISSION: 'Missions',
  HOP_PLAN: 'Hop plans',
  HOP_IMPLEMENTATION: 'Hop implementations',
  ASSET: 'Assets',
};

function item(review: MissionReview, now: number, receivedAt: number): Item {
  const { mission, hop, asset } = review;
  const title = mission.title;
  // A mission's link names what it is listed for, so two items of one mission do not share a name.
  const link = (what: string) => (
    <a href={href(`/missions/${mission.id}`)}>
      {title}
      <span className="sr-only"> ({what})</span>
    </a>
  );
  const of = ` of mission “${title}”`;
  const since = review.waitingSince;
  if (review.kind === 'HOP_PLAN' && hop) {
    return {
      kind: 'hopPlan',
      id: hop.id,
      missionId: mission.id,
      label: `the plan of hop ${hop.sequence} “${hop.name}”${of}`,
      title: (
        <>
          {link(`plan of hop ${hop.sequence}`)} — hop {hop.sequence}: {hop.name}
          {hop.isFinal ? ' (final)' : ''}
        </>
      ),
      since,
      decision: review.openDecision,
      body: <p className="pre">{hop.plan}</p>,
    };
  }
  if (review.kind === 'HOP_IMPLEMENTATION' && hop) {
    return {
      kind: 'hopImplementation',
      id: hop.id,
      missionId: mission.id,
      label: `the implementation of hop ${hop.sequence} “${hop.name}”${of}`,
      title: (
        <>
          {link(`implementation of hop ${hop.sequence}`)} — hop {hop.sequence}: {hop.name}
        </>
      ),
      since,
      decision: review.openDecision,
      body: (
        <ol className="tool-steps compact" aria-label={`Proposed tool steps of hop ${hop.sequence}${of}`}>
          {hop.toolSteps.edges.map(({ node: s }) => (
            <li key={s.id} data-tool-step-id={s.id}>
              {s.name} {s.toolName ? <code>{s.toolName}</code> : null} <StatusBadge status={s.status} />
              {s.parameters != null ? <code className="params"> {JSON.stringify(s.parameters)}</code> : null}
            </li>
          ))}
        </ol>
      ),
    };
  }
  if (review.kind === 'ASSET' && asset) {
    return {
      kind: 'asset',
      id: asset.id,
      missionId: mission.id,
      label: `asset “${asset.name}”${of}`,
      title: (
        <>
          {link(`asset “${asset.name}”`)} — asset: {asset.name}
        </>
      ),
      since,
      decision: review.openDecision,
      body: (
        <>
          {asset.description ? <p>{asset.description}</p> : null}
          <p className="ttl" data-testid="asset-ttl">
            {describeTtl(asset, ttlDeadline(asset, receivedAt), now).text}
          </p>
        </>
      ),
    };
  }
  return {
    kind: KIND[review.kind],
    id: mission.id,
    missionId: mission.id,
    label: `mission “${title}”`,
    title: <a href={href(`/missions/${mission.id}`)}>{title}</a>,
    since,
    decision: review.openDecision,
    body: <p className="pre">{mission.goal}</p>,
  };
}

interface Read {
  /** The view the page was read for (formatReviewView). */
  key: string;
  page: ProposalPage | null;
  /** When it arrived (this browser's clock): its assets' countdowns start from it. */
  receivedAt: number;
  error: string | null;
}

/** The view's page, read again whenever the view or `version` changes; the latest read wins. */
function useProposals(view: ReviewView, version: number): Read {
  const { http, report } = useConnection();
  const key = formatReviewView(view);
  const [read, setRead] = useState<Read>({ key: '', page: null, receivedAt: 0, error: null });
  useEffect(() => {
    let current = true;
    http.request(MissionReviewsDocument, reviewVariables(view)).then(
      (r) => current && setRead({ key, page: r.missionReviews, receivedAt: Date.now(), error: null }),
      (error: unknown) => {
        if (!current) return;
        report(error);
        setRead((s) => ({ ...s, key, error: error instanceof Error ? error.message : String(error) }));
      },
    );
    return () => {
      current = false;
    };
    // `view` is read through `key`, which holds all of it.
  }, [http, key, version]);
  return read;
}

function showView(view: ReviewView, query: string): void {
  const text = formatReviewView(view, query);
  window.location.hash = text ? `/reviews?${text}` : '/reviews';
}

function Filters({ view, onChange }: { view: ReviewView; onChange(v: ReviewView): void }) {
  const [search, setSearch] = useState(view.search);
  useEffect(() => setSearch(view.search), [view.search]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onChange(changedView(view, { search: search.trim() }));
  };
  const what = <span className="sr-only"> mission proposals</span>;
  return (
    <form className="table-filters" role="search" aria-label="Filter mission proposals" onSubmit={submit}>
      <label>
        <span>Search{what}</span>
        <input type="search" value={search} maxLength={200} onChange={(e) => setSearch(e.target.value)} placeholder="mission title, 3+ characters" />
      </label>
      <label>
        <span>Kind{what}</span>
        <select
          value={view.kinds.length === 1 ? view.kinds[0] : ''}
          onChange={(e) => onChange(changedView(view, { kinds: e.target.value ? [e.target.value as MissionReviewKind] : [] }))}
        >
          <option value="">All kinds</option>
          {REVIEW_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_FILTER[k]}
            </option>
          ))}
        </select>
      </label>
      <label>
        <span>Waiting since from{what}</span>
        <input type="datetime-local" value={view.since} onChange={(e) => onChange(changedView(view, { since: e.target.value }))} />
      </label>
      <label>
        <span>to{what}</span>
        <input type="datetime-local" value={view.until} onChange={(e) => onChange(changedView(view, { until: e.target.value }))} />
      </label>
      <label>
        <span>Order{what}</span>
        <select value={view.order} onChange={(e) => onChange(changedView(view, { order: e.target.value as ReviewListOrder }))}>
          <option value="deadline">Nearest deadline first</option>
          <option value="oldest">Longest waiting first</option>
          <option value="newest">Most recent first</option>
        </select>
      </label>
      <button type="submit">
        Search<span className="sr-only"> mission proposals</span>
      </button>
    </form>
  );
}

/**
 * The missions decided on this page, read again whenever a mission event changed the proposals' count
 * (`version`), so "Decided here" follows them (a mission approved here moves on to building its hop)
 * without the Reviews page holding the whole mission list.
 */
function useDecidedMissions(ids: readonly string[], version: number): Readonly<Record<string, MissionSummary>> {
  const { http, report } = useConnection();
  const [read, setRead] = useState<Record<string, MissionSummary>>({});
  const key = [...new Set(ids)].sort().join(',');
  useEffect(() => {
    if (!key) return undefined;
    let current = true;
    Promise.all(key.split(',').map((id) => http.request(MissionSummaryDocument, { id }).then((r) => r.mission))).then(
      (missions) => {
        if (!current) return;
        setRead(Object.fromEntries(missions.flatMap((m) => (m ? [[m.id, m]] : []))));
      },
      (error: unknown) => report(error),
    );
    return () => {
      current = false;
    };
  }, [http, report, key, version]);
  return read;
}

export function MissionReviews() {
  const reviews = useMissionReviews();
  const now = useNow();
  const raw = useHashQuery();
  const view = parseReviewView(raw);
  const read = useProposals(view, reviews?.readAt ?? 0);
  const [decided, setDecided] = useState<DecidedItem[]>([]);
  // What was just decided here stays hidden until the page is read again (which no longer lists it).
  const [answered, setAnswered] = useState<{ page: ProposalPage | null; keys: ReadonlySet<string> }>({
    page: null,
    keys: new Set(),
  });
  const page = read.page;
  const hidden = answered.page === page ? answered.keys : new Set<string>();
  // The server's order: the longest waiting first (or the most recent, as the view says).
  const open = page
    ? page.edges.map((e) => item(e.node, now, read.receivedAt)).filter((i) => !hidden.has(`${i.kind}:${i.id}`))
    : null;
  const changed = useMissionChanged();
  const held = useDecidedMissions(
    decided.map((d) => d.missionId),
    reviews?.readAt ?? 0,
  );
  const byKey = new Map((open ?? []).map((i) => [`${i.kind}:${i.id}`, i]));
  const targets = (open ?? []).map((i) => ({ key: `${i.kind}:${i.id}`, label: i.label, kind: REVIEW_KIND[i.kind], id: i.id }));
  const selection = useSelection(targets.map((t) => t.key));
  const change = (next: ReviewView) => showView(next, raw);
  const stale = read.key !== formatReviewView(view);
  const first = view.at.length * view.size;
  return (
    <section aria-labelledby="mission-reviews-title" className="review-section" data-testid="mission-reviews">
      <h2 id="mission-reviews-title">Mission proposals</h2>
      <Filters view={view} onChange={change} />
      {read.error ? (
        <p className="error" role="alert">
          Could not load the mission proposals: {read.error}
        </p>
      ) : null}
      {page === null && !read.error ? <p>Loading…</p> : null}
      {page ? (
        <p className="lede table-status" data-testid="mission-reviews-count" aria-busy={stale}>
          {page.totalCount === 0
            ? isFiltered(view)
              ? 'No proposal matches'
              : null
            : `${Math.min(first + 1, page.totalCount)}–${first + page.edges.length} of ${page.totalCount} proposal${page.totalCount === 1 ? '' : 's'}`}
        </p>
      ) : null}
      {page?.totalCount === 0 && !isFiltered(view) ? (
        <p className="card empty-small">
          No mission, hop plan, implementation or asset is waiting for a decision. Proposals appear here the moment an
          agent makes them.
        </p>
      ) : null}
      <BulkDecide
        what="mission proposals"
        targets={targets}
        total={page?.totalCount}
        selection={selection}
        onDone={(decided) => {
          for (const target of decided) {
            const item = byKey.get(target.key);
            if (item) changed(item.missionId);
          }
        }}
      />
      <ul className="inbox" aria-label={`Mission proposals waiting, ${ORDER_WORDS[view.order]} first`}>
        <RowsOpenUpTo count={(open ?? []).length}>
        {(open ?? []).map((item) => (
          <ReviewRow
            key={`${item.kind}:${item.id}`}
            data={{ 'data-review-kind': item.kind, 'data-review-id': item.id }}
            target={{ key: `${item.kind}:${item.id}`, label: item.label }}
            selection={selection}
            kind={KIND_TITLE[item.kind]}
            title={item.title}
            meta={<ReviewMeta decision={item.decision} since={item.since} now={now} />}
          >
            {item.body}
            <ProposalDecision
              kind={item.kind}
              id={item.id}
              missionId={item.missionId}
              label={item.label}
              onDecided={(d) => {
                const { kind, id, missionId, label } = item;
                setDecided((all) => [
                  { ...d, key: (all[0]?.key ?? 0) + 1, kind, id, missionId, label },
                  ...all,
                ]);
                setAnswered({ page, keys: new Set([...hidden, `${kind}:${id}`]) });
              }}
            />
          </ReviewRow>
        ))}
        </RowsOpenUpTo>
      </ul>
      {page && (view.at.length > 0 || page.pageInfo.hasNextPage) ? (
        <nav className="pager" aria-label="Pages of mission proposals">
          <button type="button" disabled={view.at.length === 0} onClick={() => change({ ...view, at: view.at.slice(0, -1) })}>
            Previous page<span className="sr-only"> of mission proposals</span>
          </button>
          <span data-testid="mission-reviews-page">Page {view.at.length + 1}</span>
          <button
            type="button"
            disabled={!page.pageInfo.hasNextPage || !page.pageInfo.endCursor}
            onClick={() => change({ ...view, at: [...view.at, page.pageInfo.endCursor as string] })}
          >
            Next page<span className="sr-only"> of mission proposals</span>
          </button>
        </nav>
      ) : null}
      {decided.length ? (
        <section aria-labelledby="mission-decided-title">
          <h3 id="mission-decided-title">Decided here</h3>
          <ul className="decided" aria-live="polite">
            {decided.map((d) => {
              // The states as they are now: the mission as last read, until then what the decision returned.
              const mission = held[d.missionId];
              const hop = mission?.currentHop?.id === d.id ? mission.currentHop : null;
              const missionStatus = mission?.status ?? d.missionStatus ?? d.status;
              const status = d.kind === 'mission' ? missionStatus : (hop?.status ?? d.status);
              return (
                <li key={d.key} className="card" data-decided-kind={d.kind} data-decided-id={d.id}>
                  <strong>{d.approved ? (d.kind === 'asset' ? 'Accepted' : 'Approved') : 'Rejected'}</strong> —{' '}
                  {d.label}: now <StatusBadge status={status} />
                  {d.kind !== 'mission' ? (
                    <>
                      , mission now <StatusBadge status={missionStatus} />
                    </>
                  ) : null}{' '}
                  <a href={href(`/missions/${d.missionId}`)}>
                    Open the mission<span className="sr-only"> of {d.label}</span>
                  </a>
                </li>
              );
            })}
          </ul>
        </section>
      ) : null}
    </section>
  );
}
