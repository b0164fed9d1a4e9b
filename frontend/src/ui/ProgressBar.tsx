import { formatPercent } from '../core/format';
import type { ProgressTone } from '../core/outcome';

/** `tone`: how it ended (core/outcome.ts); the fill is green only for success. */
export function ProgressBar({ percent, label, tone = 'running' }: { percent: number; label: string; tone?: ProgressTone }) {
  const value = Math.max(0, Math.min(100, percent));
  return (
    <div
      className={`progress progress-${tone}`}
      data-tone={tone}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(value)}
      aria-valuetext={`${formatPercent(value)} done`}
    >
      <div className="progress-fill" style={{ width: `${value}%` }} />
      <span className="progress-text">{formatPercent(value)}</span>
    </div>
  );
}
