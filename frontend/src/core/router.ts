/** Hash routes (`#/plans/<id>`): the server serves one page at `/` and needs no route of its own. */

export type Params = Readonly<Record<string, string>>;

/** The path a location hash names: `#/plans/x` → `/plans/x`; nothing → `/`. */
export function pathOf(hash: string): string {
  const path = hash.replace(/^#/, '').split('?')[0] ?? '';
  return path.startsWith('/') ? path : `/${path}`;
}

export function href(path: string): string {
  return `#${path}`;
}

/** Match `/plans/:id` against `/plans/abc` → `{ id: 'abc' }`; no match → null. */
export function matchPath(pattern: string, path: string): Params | null {
  const want = pattern.split('/').filter(Boolean);
  const got = path.split('/').filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i] as string;
    const g = got[i] as string;
    if (w.startsWith(':')) {
      try {
        params[w.slice(1)] = decodeURIComponent(g);
      } catch {
        return null;
      }
    } else if (w !== g) {
      return null;
    }
  }
  return params;
}

export interface Routed<V> {
  view: V;
  params: Params;
}

export function route<V extends { path: string }>(views: readonly V[], path: string): Routed<V> | null {
  for (const view of views) {
    const params = matchPath(view.path, path);
    if (params) return { view, params };
  }
  return null;
}
