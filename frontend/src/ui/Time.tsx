/** A time as people read it at a glance ("5 min ago"), the absolute time (with its zone) in the tooltip. */
import { formatRelative, formatTime } from '../core/format';
import { useNow } from '../core/hooks';

export function Time({ iso, now }: { iso: string | null | undefined; now?: number }) {
  const ticking = useNow(now === undefined ? 15_000 : 3_600_000);
  if (!iso) return <span className="hint">–</span>;
  const absolute = formatTime(iso);
  return (
    <time dateTime={iso} title={absolute}>
      {formatRelative(iso, now ?? ticking)}
      <span className="sr-only"> ({absolute})</span>
    </time>
  );
}
