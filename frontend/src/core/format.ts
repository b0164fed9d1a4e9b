/** Small formatting helpers: durations, times, enum values as words. */

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '–';
  const seconds = Math.floor(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${seconds % 60}s`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ${minutes % 60}m`;
  return `${Math.floor(hours / 24)}d ${hours % 24}h`;
}

/** Elapsed time between two ISO timestamps; an open end runs to `now`. */
export function elapsed(start: string | null | undefined, end: string | null | undefined, now: number): number | null {
  if (!start) return null;
  const from = Date.parse(start);
  const to = end ? Date.parse(end) : now;
  return Number.isNaN(from) || Number.isNaN(to) ? null : Math.max(0, to - from);
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '–';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  // The time zone is part of every time shown ("… 14:03:07 UTC"): a shared screen or a screenshot says
  // which clock it was read on. timeStyle 'long' adds it; dateStyle stays 'medium'.
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'long' });
}

export function formatPercent(value: number): string {
  return `${Math.round(value)}%`;
}

export function formatConfidence(value: number | null | undefined): string {
  return value == null ? '–' : `${Math.round(value * 100)}%`;
}

const COUNT = new Intl.NumberFormat('en');

/** A count with thousands separators: 100000 → "100,000". */
export function formatCount(n: number): string {
  return COUNT.format(n);
}

/**
 * How long ago (or from now) an ISO time is, in words: "just now", "5 min ago", "in 3 h", "2 days ago".
 * The absolute time goes beside it (a tooltip, see ui/Time.tsx).
 */
export function formatRelative(iso: string | null | undefined, now: number): string {
  if (!iso) return '–';
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const ms = at - now;
  const future = ms > 0;
  const s = Math.abs(ms) / 1000;
  if (s < 10) return 'just now';
  const say = (n: number, unit: string) => (future ? `in ${n} ${unit}` : `${n} ${unit} ago`);
  if (s < 60) return say(Math.floor(s), 's');
  if (s < 3600) return say(Math.floor(s / 60), 'min');
  if (s < 48 * 3600) return say(Math.floor(s / 3600), 'h');
  const days = Math.floor(s / 86400);
  return say(days, days === 1 ? 'day' : 'days');
}
