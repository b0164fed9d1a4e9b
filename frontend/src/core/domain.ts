/**
 * What a domain plugs into the dashboard: its views (routes), its navigation entries, and optionally a
 * provider for state that lives as long as the page (research plans keep the plan list live), its
 * section of the overview page (`#/`, see sections.tsx) and its section of the Reviews page (see
 * domains/reviews). A domain adds a folder under src/domains/ and one line to src/app/registry.ts.
 */
import type { ComponentType, ReactNode } from 'react';

import type { Params } from './router';

export interface ViewDef {
  /** A route pattern such as `/plans/:id`. */
  path: string;
  title: string;
  component: ComponentType<{ params: Params }>;
}

export interface NavItem {
  path: string;
  label: string;
  /** Rendered after the label, e.g. a live count. */
  badge?: ComponentType;
}

/** A domain's part of the Reviews page: the things that wait for a person's decision there. */
export interface ReviewSource {
  /** How many wait now, kept live (the nav badge and the page's summary add these up); null until known. */
  useWaiting(): number | null;
  /** The domain's section of the page: its own heading, the items and their decision buttons. */
  Section: ComponentType;
}

export interface DomainModule {
  id: string;
  views: ViewDef[];
  nav: NavItem[];
  provider?: ComponentType<{ children: ReactNode }>;
  /** Its section of the overview page (`/`), under its own heading, after the research plans. */
  overview?: ComponentType;
  reviews?: ReviewSource;
}
