/**
 * The overview and Reviews pages show what other domains contribute (DomainModule.overview and
 * .reviews). The shell provides the registered domains here, so those pages need not import the
 * registry (which imports them).
 */
import { createContext, useContext } from 'react';

import type { DomainModule } from './domain';

export const DomainsContext = createContext<readonly DomainModule[]>([]);

/** Every domain's overview section, in registry order. */
export function OverviewSections() {
  const domains = useContext(DomainsContext);
  return (
    <>
      {domains.map((d) => {
        const Section = d.overview;
        return Section ? <Section key={d.id} /> : null;
      })}
    </>
  );
}

/** Every domain's section of the Reviews page, in registry order. */
export function ReviewSections() {
  const domains = useContext(DomainsContext);
  return (
    <>
      {domains.map((d) => {
        const Section = d.reviews?.Section;
        return Section ? <Section key={d.id} /> : null;
      })}
    </>
  );
}

/** What waits in the domains' review sections, added up; null while any is unknown. */
export function useReviewSectionsWaiting(): number | null {
  // The registry never changes while the page runs, so these hooks run in the same order every render.
  const counts = useContext(DomainsContext).map((d) => (d.reviews ? d.reviews.useWaiting() : 0));
  return counts.some((n) => n === null) ? null : counts.reduce<number>((sum, n) => sum + (n ?? 0), 0);
}
