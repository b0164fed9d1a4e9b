/** Every state machine of the engine, whatever domain registered it. */
import type { DomainModule } from '../../core/domain';
import { useStateMachines } from '../../core/machines';
import { StateDiagram } from '../../ui/StateDiagram';

function MachinesView() {
  const { machines, error } = useStateMachines();
  const domains = [...new Set((machines ?? []).map((m) => m.domain))];
  return (
    <section aria-labelledby="machines-title" className="page">
      <h1 id="machines-title">State machines</h1>
      <p className="lede">
        Every state change in Flightdeck goes through these tables; this page draws them from the server's{' '}
        <code>stateMachines</code> query.
      </p>
      {error ? <p className="error" role="alert">Could not load the machines: {error}</p> : null}
      {machines === null && !error ? <p>Loading…</p> : null}
      {domains.map((domain) => (
        <section key={domain} aria-label={domain}>
          <h2 className="capitalize">{domain}</h2>
          <div className="diagram-grid">
            {(machines ?? [])
              .filter((m) => m.domain === domain)
              .map((m) => (
                <div key={m.entity}>
                  {m.description ? <p className="hint">{m.description}</p> : null}
                  <StateDiagram machine={m} current={{}} title={m.entity.replace(/_/g, ' ')} />
                </div>
              ))}
          </div>
        </section>
      ))}
    </section>
  );
}

export const machinesDomain: DomainModule = {
  id: 'machines',
  views: [{ path: '/machines', title: 'State machines', component: MachinesView }],
  nav: [{ path: '/machines', label: 'State machines' }],
};
