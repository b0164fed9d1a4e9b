/**
 * An asset's TTL as a countdown.
 *
 * The server says how many seconds were left when it took the snapshot (`expiresInSeconds`, by its own
 * clock); the page counts down from the moment it received that snapshot, so a browser whose clock is
 * off still shows the server's time left. Reaching zero does not expire the asset: the server's expiry
 * timer does, and the EXPIRED state then arrives with the next snapshot.
 */
import type { Asset } from './api';

/** When (by this browser's clock, in ms) the asset's TTL runs out; null when it has none. */
export function ttlDeadline(asset: Pick<Asset, 'expiresInSeconds'>, receivedAt: number): number | null {
  return asset.expiresInSeconds == null ? null : receivedAt + asset.expiresInSeconds * 1000;
}

/** A countdown: whole seconds rounded up, so "0s" is never shown while time is left. */
export function formatCountdown(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const s = total % 60;
  const m = Math.floor(total / 60) % 60;
  const h = Math.floor(total / 3600) % 24;
  const d = Math.floor(total / 86400);
  const two = (n: number) => String(n).padStart(2, '0');
  if (d) return `${d}d ${two(h)}h`;
  if (h) return `${h}h ${two(m)}m`;
  if (m) return `${m}m ${two(s)}s`;
  return `${s}s`;
}

export type TtlPhase = 'none' | 'running' | 'due' | 'expired';

export interface TtlView {
  phase: TtlPhase;
  text: string;
  /** Less than a minute left. */
  urgent: boolean;
}

export function describeTtl(
  asset: Pick<Asset, 'status' | 'expiresInSeconds'>,
  deadline: number | null,
  now: number,
): TtlView {
  if (asset.status === 'EXPIRED') return { phase: 'expired', text: 'Expired', urgent: false };
  if (deadline === null) return { phase: 'none', text: 'No TTL: it never expires', urgent: false };
  // Never more than the server said: a render may use a `now` from just before the snapshot arrived.
  const left = Math.min(deadline - now, (asset.expiresInSeconds ?? 0) * 1000);
  if (left <= 0) return { phase: 'due', text: 'TTL ran out: expiring…', urgent: true };
  return { phase: 'running', text: `Expires in ${formatCountdown(left)}`, urgent: left < 60_000 };
}
