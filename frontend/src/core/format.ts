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
