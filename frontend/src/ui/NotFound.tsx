/** What a page says when the thing its address names does not exist for this tenant. */
import { href } from '../app/router';

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
