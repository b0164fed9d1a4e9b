/** Asks for the API key once; it is kept in sessionStorage until the tab is closed. */
import { useId, useState } from 'react';

export function KeyForm({ refused, onSubmit }: { refused: boolean; onSubmit: (key: string) => void }) {
  const [value, setValue] = useState('');
  const inputId = useId();
  const hintId = useId();
  return (
    <main id="main" className="key-page">
      <form
        className="card key-form"
        onSubmit={(e) => {
          e.preventDefault();
          if (value.trim()) onSubmit(value.trim());
        }}
      >
        <h1>Flightdeck needs an API key</h1>
        {refused ? (
          <p className="error" role="alert">
            The server refused that key (unknown, revoked or mistyped). Enter another one.
          </p>
        ) : null}
        <label htmlFor={inputId}>API key</label>
        <input
          id={inputId}
          type="password"
          autoComplete="off"
          required
          value={value}
          aria-describedby={hintId}
          onChange={(e) => setValue(e.target.value)}
          autoFocus
        />
        <p id={hintId} className="hint">
          The key stays in this browser tab only and is forgotten when you close it. An administrator creates one
          with <code>flightdeck keys create --tenant TENANT --role reviewer --name me</code>; a reviewer (or admin)
          key can also answer reviews.
        </p>
        <button type="submit" className="primary">
          Connect
        </button>
      </form>
    </main>
  );
}
