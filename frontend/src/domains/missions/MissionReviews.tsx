/**
 * The missions' part of the Reviews page: proposed missions, hop plans, hop implementations and assets
 * waiting for a person, each with approve and reject (with a reason); kept live from missionReviewInbox.
 */
import { useState, type ReactNode } from 'react';

import { useConnection } from '../../core/connection';
import { formatDuration, formatTime } from '../../core/format';
import { useNow } from '../../core/hooks';
import { href } from '../../core/router';
import { describeUserError } from '../../core/userErrors';
import { BulkDecide, SelectBox, useSelection } from '../../ui/BulkDecide';
import { StatusBadge } from '../../ui/StatusBadge';
import { ACTS, type MissionInbox, type MissionSummary, type ProposalKind } from './api';
import { useMissionChanged, useMissions } from './context';
import { ProposalDecision, type Decided } from './Decision';
import { describeTtl, ttlDeadline } from './ttl';

interface Item {
  kind: ProposalKind;
  id: string;
  missionId: string;
  /** "mission “x”", "the plan of hop 1 “y”", ... */
  label: string;
  title: ReactNode;
  since: string;
  body: ReactNode;
}

interface DecidedItem extends Decided {
  key: number;
  kind: ProposalKind;
  id: string;
  missionId: string;
  label: string;
  /** The mission as the list held it when the decision came back; until it is re-read, the answer is newer. */
  before: MissionSummary | undefined;
}

const KIND_TITLE: Record<ProposalKind, string> = {
  mission: 'Mission proposal',
  hopPlan: 'Hop plan',
  hopImplementation: 'Hop implementation',
  asset: 'Asset',
};

function items(inbox: MissionInbox, titleOf: (missionId: string) => string, now: number, receivedAt: number): Item[] {
  // A mission's link names what it is listed for, so two items of one mission do not share a name.
  const link = (missionId: string, what: string) => (
    <a href={href(`/missions/${missionId}`)}>
      {titleOf(missionId)}
      <span className="sr-only"> ({what})</span>
    </a>
  );
  const of = (missionId: string) => ` of mission “${titleOf(missionId)}”`;
  return [
    ...inbox.missions.map<Item>((m) => ({
      kind: 'mission',
      id: m.id,
      missionId: m.id,
      label: `mission “${m.title}”`,
      title: <a href={href(`/missions/${m.id}`)}>{m.title}</a>,
      since: m.createdAt,
      body: <p className="pre">{m.goal}</p>,
    })),
    ...inbox.hopPlans.map<Item>((h) => ({
      kind: 'hopPlan',
      id: h.id,
      missionId: h.missionId,
      label: `the plan of hop ${h.sequence} “${h.name}”${of(h.missionId)}`,
      title: (
        <>
          {link(h.missionId, `plan of hop ${h.sequence}`)} — hop {h.sequence}: {h.name}
          {h.isFinal ? ' (final)' : ''}
        </>
      ),
      since: h.updatedAt,
      body: <p className="pre">{h.plan}</p>,
    })),
    ...inbox.hopImplementations.map<Item>((h) => ({
      kind: 'hopImplementation',
      id: h.id,
      missionId: h.missionId,
      label: `the implementation of hop ${h.sequence} “${h.name}”${of(h.missionId)}`,
      title: (
        <>
          {link(h.missionId, `implementation of hop ${h.sequence}`)} — hop {h.sequence}: {h.name}
        </>
      ),
      since: h.updatedAt,
      body: (
        <ol className="tool-steps compact" aria-label="Proposed tool steps">
          {h.toolSteps.edges.map(({ node: s }) => (
            <li key={s.id} data-tool-step-id={s.id}>
              {s.name} {s.toolName ? <code>{s.toolName}</code> : null} <StatusBadge status={s.status} />
              {s.parameters != null ? <code className="params"> {JSON.stringify(s.parameters)}</code> : null}
            </li>
          ))}
        </ol>
      ),
    })),
    ...inbox.assets.map<Item>((a) => ({
      kind: 'asset',
      id: a.id,
      missionId: a.missionId,
      label: `asset “${a.name}”${of(a.missionId)}`,
      title: (
        <>
          {link(a.missionId, `asset “${a.name}”`)} — asset: {a.name}
        </>
      ),
      since: a.createdAt,
      body: (
        <>
          {a.description ? <p>{a.description}</p> : null}
          <p className="ttl" data-testid="asset-ttl">
            {describeTtl(a, ttlDeadline(a, receivedAt), now).text}
          </p>
        </>
      ),
    })),
  ];
}

export function MissionReviews() {
  const state = useMissions();
  const now = useNow();
  const [decided, setDecided] = useState<DecidedItem[]>([]);
  // What was just decided here stays hidden until the inbox is read again (which no longer lists it).
  const [answered, setAnswered] = useState<{ inbox: MissionInbox | null; keys: ReadonlySet<string> }>({
    inbox: null,
    keys: new Set(),
  });
  const hidden = answered.inbox === state.inbox ? answered.keys : new Set<string>();
  const titleOf = (id: string) => state.byId[id]?.title ?? 'a mission';
  const list = state.inbox ? items(state.inbox, titleOf, now, state.inboxReceivedAt) : null;
  // The longest waiting first.
  const open =
    list
      ?.filter((item) => !hidden.has(`${item.kind}:${item.id}`))
      .sort((a, b) => Date.parse(a.since) - Date.parse(b.since)) ?? null;
  const { http } = useConnection();
  const changed = useMissionChanged();
  const byKey = new Map((open ?? []).map((item) => [`${item.kind}:${item.id}`, item]));
  const targets = (open ?? []).map((item) => ({ key: `${item.kind}:${item.id}`, label: item.label }));
  const selection = useSelection(targets.map((t) => t.key));
  return (
    <section aria-labelledby="mission-reviews-title" className="review-section" data-testid="mission-reviews">
      <h2 id="mission-reviews-title">Mission proposals</h2>
      {state.error ? (
        <p className="error" role="alert">
          Could not load the mission proposals: {state.error}
        </p>
      ) : null}
      {open === null && !state.error ? <p>Loading…</p> : null}
      {open?.length === 0 ? (
        <p className="card empty-small">
          No mission, hop plan, implementation or asset is waiting for a decision. Proposals appear here the moment an
          agent makes them.
        </p>
      ) : null}
      <BulkDecide
        what="mission proposals"
        targets={targets}
        selection={selection}
        decide={async (target, approve, reason) => {
          const item = byKey.get(target.key);
          if (!item) return 'no longer waiting';
          const act = ACTS[item.kind];
          const payload = await (approve ? act.approve(http, item.id) : act.reject(http, item.id, reason));
          changed(item.missionId);
          return payload.userErrors.length ? payload.userErrors.map(describeUserError).join(' ') : null;
        }}
        onDone={() => undefined}
      />
      <ul className="inbox" aria-label="Mission proposals waiting, the longest waiting first">
        {(open ?? []).map((item) => (
          <li
            key={`${item.kind}:${item.id}`}
            className="card review"
            data-review-kind={item.kind}
            data-review-id={item.id}
          >
            <div className="review-head">
              <h3>
                <span className="review-kind">{KIND_TITLE[item.kind]}</span> {item.title}
              </h3>
              <SelectBox selection={selection} target={{ key: `${item.kind}:${item.id}`, label: item.label }} />
            </div>
            <p className="meta">
              <span className="waited">waiting {formatDuration(now - Date.parse(item.since))}</span> · since{' '}
              {formatTime(item.since)}
            </p>
            {item.body}
            <ProposalDecision
              kind={item.kind}
              id={item.id}
              missionId={item.missionId}
              label={item.label}
              onDecided={(d) => {
                const { kind, id, missionId, label } = item;
                const before = state.byId[missionId];
                setDecided((all) => [
                  { ...d, key: (all[0]?.key ?? 0) + 1, kind, id, missionId, label, before },
                  ...all,
                ]);
                setAnswered({ inbox: state.inbox, keys: new Set([...hidden, `${kind}:${id}`]) });
              }}
            />
          </li>
        ))}
      </ul>
      {decided.length ? (
        <section aria-labelledby="mission-decided-title">
          <h3 id="mission-decided-title">Decided here</h3>
          <ul className="decided" aria-live="polite">
            {decided.map((d) => {
              // The states as they are now: the mission list once re-read, until then what the decision returned.
              const held = state.byId[d.missionId];
              const mission = held !== d.before ? held : undefined;
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
