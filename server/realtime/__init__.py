"""Live delivery: how a committed change reaches every subscriber, in this process and in the others.

The rest of the server sees three pairs of names:

- ``NoticeBus`` / ``Notice`` (``bus.py``): a small "tenant T has new events" message between processes
  (in memory, Redis or PostgreSQL LISTEN/NOTIFY, through broadcaster). A notice carries no data; the
  event log is the only source of truth.
- ``EventFeed`` / ``LoggedEvent`` (``feed.py``): per tenant, one task that follows the event log and
  wakes the local subscribers; a subscriber holds only its position.
- ``Fanout`` / ``FanoutTransportWSHandler`` (``fanout.py``, ``fanout_group.py``): the graphql-transport-ws
  handler that renders each event once per distinct subscription and writes the bytes to every member.
  It speaks GraphQL, so it is imported from ``server.realtime.fanout`` by the HTTP view alone and not
  re-exported here (that would make this package import the API).

Nothing here changes state: services commit, then publish a notice; this package only reads and sends.
"""

from .bus import Notice, NoticeBus
from .feed import EventFeed, LoggedEvent

__all__ = ["EventFeed", "LoggedEvent", "Notice", "NoticeBus"]
