/**
 * What a domain plugs into the dashboard: its views (routes), its navigation entries, and optionally a
 * provider for state that lives as long as the page (research plans keep the plan list live).
 * Missions and workflows add a folder under src/domains/ and one line to src/app/registry.ts.
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

export interface DomainModule {
  id: string;
  views: ViewDef[];
  nav: NavItem[];
  provider?: ComponentType<{ children: ReactNode }>;
}
