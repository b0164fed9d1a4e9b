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
