/** The activity page (`#/activity`): the tenant's event log, filtered, with a live tail. */
import { useEffect, useState, type FormEvent } from 'react';

import type { DomainModule } from '../../core/domain';
import { useConnection } from '../../core/connection';
import type { LoggedEvent } from '../../core/events';
import { useHashQuery, useStarted, useStore } from '../../core/hooks';
import { EventHistory } from '../../ui/EventHistory';
import { ActivityFeed, formatActivityQuery, parseActivityQuery, type ActivityQuery } from './live';

const ROOT_TYPES = ['plan', 'mission', 'workflow', 'skill_execution', 'tool'];

function describe(event: LoggedEvent): string {
  const change = event.fromState || event.toState ? `: ${event.fromState ?? '–'} → ${event.toState ?? '–'}` : '';
  return `${event.entityType} ${event.entityId.slice(0, 8)}${change}`;
}

/** The page that shows an event's root (a plan, a mission, a workflow); null for roots with no page. */
const ROOT_PAGES: Readonly<Record<string, string>> = { plan: '/plans', mission: '/missions', workflow: '/workflows' };
export function eventLink(event: LoggedEvent): string | null {
  const page = ROOT_PAGES[event.rootType];
  return page ? `${page}/${event.rootId}` : null;
}

export function ActivityPage() {
  const query = parseActivityQuery(useHashQuery());
  const key = formatActivityQuery(query);
  const { http, live, report } = useConnection();
  const feed = useStarted(() => new ActivityFeed(query, { http, client: live, onFailure: report }), [key]);
  const show = (next: ActivityQuery) => {
    const text = formatActivityQuery(next);
    window.location.hash = text ? `/activity?${text}` : '/activity';
  };
  return (
    <section aria-labelledby="activity-title" className="page" data-testid="activity">
      <h1 id="activity-title">Activity</h1>
      <p className="lede">Everything that happened in your tenant, newest first; new events appear at the top as they happen.</p>
      <ActivityFilters query={query} onChange={show} />
      {feed ? <Feed feed={feed} /> : null}
    </section>
  );
}

function ActivityFilters({ query, onChange }: { query: ActivityQuery; onChange(q: ActivityQuery): void }) {
  const [kinds, setKinds] = useState(query.kinds.join(', '));
  const [entity, setEntity] = useState(query.entityId);
  useEffect(() => setKinds(query.kinds.join(', ')), [query.kinds.join(',')]);
  useEffect(() => setEntity(query.entityId), [query.entityId]);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const list = kinds.split(',').map((k) => k.trim()).filter(Boolean);
    onChange({ ...query, kinds: list, entityId: entity.trim() });
  };
  return (
    <form className="table-filters" role="search" aria-label="Filter events" onSubmit={submit}>
      <label>
        Kinds (comma-separated)
        <input value={kinds} maxLength={2000} onChange={(e) => setKinds(e.target.value)} placeholder="plan_stalled, step_started" />
      </label>
      <label>
        Object id
        <input value={entity} maxLength={100} onChange={(e) => setEntity(e.target.value)} />
      </label>
      <label>
        Of
        <select value={query.rootType} onChange={(e) => onChange({ ...query, rootType: e.target.value })}>
          <option value="">Everything</option>
          {ROOT_TYPES.map((t) => (
            <option key={t} value={t}>
              {t.replaceAll('_', ' ')}
            </option>
          ))}
        </select>
      </label>
      <label>
        From
        <input type="datetime-local" value={query.since} onChange={(e) => onChange({ ...query, since: e.target.value })} />
      </label>
      <label>
        to
        <input type="datetime-local" value={query.until} onChange={(e) => onChange({ ...query, until: e.target.value })} />
      </label>
      <button type="submit">Filter</button>
    </form>
  );
}

function Feed({ feed }: { feed: ActivityFeed }) {
  const state = useStore(feed.store);
  return (
    <>
      {state.error ? (
        <p className="error" role="alert">
          Could not read the events: {state.error}
        </p>
      ) : null}
      <EventHistory events={state.events} loaded={state.loaded} describe={describe} link={eventLink} />
      {state.hasOlder ? (
        <button type="button" className="older" onClick={() => void feed.older()}>
          Older events
        </button>
      ) : null}
    </>
  );
}

export const activityDomain: DomainModule = {
  id: 'activity',
  views: [{ path: '/activity', title: 'Activity', component: ActivityPage }],
  nav: [{ path: '/activity', label: 'Activity' }],
};
