/**
 * The overview page (`/`, owned by the research plans) shows the other domains' sections
 * (DomainModule.overview) after its own. The shell provides the registered domains here, so the plan
 * views need not import the registry (which imports them).
 */
import { createContext, useContext } from 'react';

import type { DomainModule } from './domain';

/** How many of each domain's newest the overview shows as cards; the counts above them cover the rest. */
export const OVERVIEW_FEW = 5;

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
