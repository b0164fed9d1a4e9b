/**
 * The Reviews page: every decision waiting for a person, whatever the domain. Each domain that has
 * such decisions contributes a section and a live count (DomainModule.reviews); this page stacks the
 * sections and the nav badge adds up the counts.
 */
import type { DomainModule, ReviewSource } from '../../core/domain';
import { DecisionTerms } from './DecisionTerms';

export function reviewsDomain(domains: readonly DomainModule[]): DomainModule {
  const sources = domains.flatMap((d) => (d.reviews ? [d.reviews] : []));

  // `sources` never changes after start-up, so each hook is called in the same order on every render.
  function useTotal(): number | null {
    const counts = sources.map((s) => s.useWaiting());
    return counts.some((n) => n === null) ? null : counts.reduce<number>((sum, n) => sum + (n ?? 0), 0);
  }

  function ReviewCount() {
    const waiting = useTotal();
    if (!waiting) return null;
    return (
      <span className="count" data-testid="review-count" aria-label={`${waiting} waiting`}>
        {waiting}
      </span>
    );
  }

  function ReviewsPage() {
    const waiting = useTotal();
    return (
      <section aria-labelledby="inbox-title" className="page">
        <div className="page-head">
          <h1 id="inbox-title">Reviews</h1>
          {waiting !== null ? (
            <p className="lede" aria-live="polite" data-testid="reviews-summary">
              {waiting ? `${waiting} decision${waiting === 1 ? '' : 's'} waiting for you` : 'Nothing waiting'}
            </p>
          ) : null}
        </div>
        <DecisionTerms />
        {sources.map((source: ReviewSource, i) => (
          <source.Section key={i} />
        ))}
      </section>
    );
  }

  return {
    id: 'reviews',
    views: [{ path: '/reviews', title: 'Reviews', component: ReviewsPage }],
    nav: [{ path: '/reviews', label: 'Reviews', badge: ReviewCount }],
  };
}
