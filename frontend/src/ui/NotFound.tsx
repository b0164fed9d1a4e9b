/** What a page says when the thing its address names does not exist for this tenant. */
import { href } from '../core/router';

export function NotFound({ what, back, backLabel }: { what: string; back: string; backLabel: string }) {
  return (
    <section className="page" aria-labelledby="missing-title">
      <h1 id="missing-title">{what} not found</h1>
      <p>
        It does not exist, or it belongs to another tenant. <a href={href(back)}>{backLabel}</a>
      </p>
    </section>
  );
}

/** What the dashboard says when no view is called `path`. */
export function UnknownView({ path }: { path: string }) {
  return (
    <section aria-labelledby="not-found">
      <h1 id="not-found">Nothing here</h1>
      <p>
        No view is called <code>{path}</code>. <a href={href('/')}>Go to the overview.</a>
      </p>
    </section>
  );
}

/**
 * What a detail page shows until its subject's first snapshot arrives: that it is loading, or, once its
 * live feed or history has failed, why (the page would otherwise say "Loading" for ever).
 */
export function Loading({ what, error }: { what: string; error: string | null }) {
  if (!error) return <p className="page">Loading the {what}…</p>;
  return (
    <section className="page" aria-labelledby="loading-failed-title">
      <h1 id="loading-failed-title">The {what} could not be loaded</h1>
      <p className="error" role="alert">
        {error}
      </p>
      <p>
        <button type="button" onClick={() => window.location.reload()}>
          Reload the page
        </button>
      </p>
    </section>
  );
}
