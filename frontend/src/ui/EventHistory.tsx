/** A root's event log (a plan's, a mission's, a workflow's), oldest first, growing live; one row per seq. */
import type { LoggedEvent } from '../core/events';
import { formatCount } from '../core/format';
import { href } from '../core/router';
import { Time } from './Time';

interface Props {
  events: readonly LoggedEvent[];
  loaded: boolean;
  /** One line, in words, for the "What happened" column. */
  describe: (event: LoggedEvent) => string;
  /** Where the event's object is shown (its root's page), when the row should link to it. */
  link?: (event: LoggedEvent) => string | null;
}

export function EventHistory({ events, loaded, describe, link }: Props) {
  return (
    <>
      <p className="meta" aria-live="polite" data-testid="event-count">
        {loaded ? `${formatCount(events.length)} event${events.length === 1 ? '' : 's'}` : 'Loading the history…'}
      </p>
      <div className="table-scroll">
        <table className="events">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">When</th>
              <th scope="col">Kind</th>
              <th scope="col">What happened</th>
              <th scope="col">By</th>
            </tr>
          </thead>
          <tbody>
            {events.map((event) => (
              <tr key={event.seq} data-seq={event.seq}>
                <td>{event.seq}</td>
                <td className="nowrap">
                  <Time iso={event.createdAt} />
                </td>
                <td>
                  <code>{event.kind}</code>
                </td>
                <td>{link?.(event) ? <a href={href(link(event) ?? '')}>{describe(event)}</a> : describe(event)}</td>
                <td>{event.actor}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
