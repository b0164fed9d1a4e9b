import { formatPercent } from '../core/format';

export function ProgressBar({ percent, label }: { percent: number; label: string }) {
  const value = Math.max(0, Math.min(100, percent));
  return (
    <div
      className="progress"
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
