// The dashboard page (Preact): the fleet as the server streams it (server-sent events, no polling),
// each cluster's registration timeline, pending CSRs and unaccepted clusters with an Accept button,
// the cluster sets and the chart. Ages tick locally from the server's clock.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { AcceptAnswer, ConditionStatus, FleetRow, FleetState, TimelineStep } from '../model.js';
import { FleetChart } from './chart.js';

/** kubectl's short age: 45s, 12m, 3h, 5d. */
function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h}h` : `${Math.floor(h / 24)}d`;
}

const since = (at: string | undefined, now: number): string => (at ? age(now - Date.parse(at)) : '');
const until = (at: string | undefined, now: number): string => {
  if (!at) return '';
  const left = Date.parse(at) - now;
  return left <= 0 ? 'expired' : `in ${age(left)}`;
};

function Cond({ s }: { s: ConditionStatus }) {
  return <span class={`cond cond-${s || 'none'}`}>{s || '-'}</span>;
}

function Timeline({ steps, now }: { steps: TimelineStep[]; now: number }) {
  return (
    <ol class="timeline">
      {steps.map((s) => (
        <li key={s.id} class={s.at ? 'done' : 'todo'} data-step={s.id}>
          <span class="dot" />
          <span class="label">{s.label}</span>
          <span class="when" title={s.at}>{s.at ? `${new Date(s.at).toLocaleTimeString()} (${since(s.at, now)} ago)` : 'not yet'}</span>
        </li>
      ))}
    </ol>
  );
}

function Row({ r, now, open, toggle }: { r: FleetRow; now: number; open: boolean; toggle: () => void }) {
  return (
    <>
      <tr data-cluster={r.name} class={open ? 'open' : ''} onClick={toggle}>
        <td class="name">{open ? '▾ ' : '▸ '}{r.name}</td>
        <td class="accepted">{String(r.hubAccepted)}</td>
        <td class="urls">{r.urls.join(', ')}</td>
        <td class="joined"><Cond s={r.joined} /></td>
        <td class="available"><Cond s={r.available} /></td>
        <td>{since(r.createdAt, now)}</td>
        <td class="lease">{since(r.leaseRenewedAt, now)}</td>
        <td class="cert">{until(r.certNotAfter, now)}</td>
        <td>{r.clusterSet ?? ''}</td>
      </tr>
      {open && (
        <tr class="detail" data-timeline={r.name}>
          <td colSpan={9}><Timeline steps={r.timeline} now={now} /></td>
        </tr>
      )}
    </>
  );
}

async function postAccept(name: string): Promise<string> {
  const res = await fetch(`/api/clusters/${encodeURIComponent(name)}/accept`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const body = (await res.json()) as AcceptAnswer | { message?: string };
  if (!res.ok) throw new Error(('message' in body && body.message) || `HTTP ${res.status}`);
  return (body as AcceptAnswer).lines.join('; ');
}

function App() {
  const [state, setState] = useState<FleetState | undefined>(undefined);
  const [live, setLive] = useState(false);
  const [skew, setSkew] = useState(0);
  const [, setTick] = useState(0);
  const [open, setOpen] = useState<Record<string, boolean>>({});
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | undefined>(undefined);

  useEffect(() => {
    const es = new EventSource('/api/events');
    es.addEventListener('state', (e) => {
      const s = JSON.parse((e as MessageEvent<string>).data) as FleetState;
      setSkew(Date.parse(s.now) - Date.now());
      setState(s);
      setLive(true);
    });
    es.onerror = () => {
      setLive(false);
      // A stream refused for want of a session is not retried by the browser: back to the login page.
      void fetch('/api/whoami').then((r) => {
        if (r.status === 401) location.href = '/login';
      });
    };
    const t = setInterval(() => setTick((n) => n + 1), 1000);
    return () => {
      es.close();
      clearInterval(t);
    };
  }, []);

  const now = Date.now() + skew;
  if (!state) return <main><h1>ocm-ts fleet</h1><p class="muted">connecting…</p></main>;
  const accept = (name: string): void => {
    setNotice(undefined);
    postAccept(name).then(
      (text) => setNotice({ ok: true, text }),
      (err: unknown) => setNotice({ ok: false, text: `cannot accept ${name}: ${err instanceof Error ? err.message : String(err)}` }),
    );
  };
  const logout = (): void => {
    void fetch('/logout', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }).then(() => (location.href = '/login'));
  };
  const ready = state.rows.filter((r) => r.available === 'True').length;
  return (
    <main>
      <header>
        <h1>ocm-ts fleet</h1>
        <span id="summary">{ready}/{state.rows.length} available</span>
        <span class={live ? 'live on' : 'live'} id="live">{live ? '● live' : '○ reconnecting'}</span>
        <span class="user">signed in as <b id="user">{state.user}</b> <button class="link" onClick={logout}>sign out</button></span>
      </header>
      {state.errors.map((e) => <p class="error" key={e}>{e}</p>)}
      {notice && <p id="notice" class={notice.ok ? 'ok' : 'error'}>{notice.text}</p>}
      <section>
        <h2>Clusters</h2>
        <table id="fleet">
          <thead><tr><th>NAME</th><th>HUB ACCEPTED</th><th>MANAGED CLUSTER URLS</th><th>JOINED</th><th>AVAILABLE</th><th>AGE</th><th>LEASE AGE</th><th>CERT EXPIRES</th><th>CLUSTERSET</th></tr></thead>
          <tbody>
            {state.rows.map((r) => <Row key={r.name} r={r} now={now} open={open[r.name] === true} toggle={() => setOpen({ ...open, [r.name]: !open[r.name] })} />)}
          </tbody>
        </table>
        {state.rows.length === 0 && <p class="muted">No ManagedCluster yet.</p>}
      </section>
      <div class="columns">
        <section id="pending">
          <h2>Waiting for the hub</h2>
          {state.unaccepted.length === 0 && state.pendingCsrs.length === 0 && <p class="muted">Nothing to accept.</p>}
          <ul class="unaccepted">
            {state.unaccepted.map((name) => (
              <li key={name} data-unaccepted={name}>
                <b>{name}</b> is not accepted{' '}
                <button id={`accept-${name}`} onClick={() => accept(name)}>Accept</button>
              </li>
            ))}
          </ul>
          {state.pendingCsrs.length > 0 && (
            <table class="csrs">
              <thead><tr><th>CSR</th><th>CLUSTER</th><th>REQUESTER</th><th>AGE</th><th></th></tr></thead>
              <tbody>
                {state.pendingCsrs.map((c) => (
                  <tr key={c.name} data-csr={c.name}>
                    <td>{c.name}</td><td>{c.cluster}</td><td>{c.requester}</td><td>{since(c.createdAt, now)}</td>
                    <td class={c.problem ? 'error' : 'muted'}>{c.problem ? `refused: ${c.problem}` : 'approved by Accept'}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section id="sets">
          <h2>Cluster sets</h2>
          {state.sets.length === 0 && <p class="muted">No ManagedClusterSet.</p>}
          <ul>
            {state.sets.map((s) => (
              <li key={s.name} data-set={s.name}><b>{s.name}</b> <span class="muted">({s.selectorType})</span>: {s.clusters.join(', ') || 'no cluster'}</li>
            ))}
          </ul>
        </section>
      </div>
      <section>
        <h2>Joins and availability</h2>
        <FleetChart points={state.chart} now={now} />
      </section>
    </main>
  );
}

render(<App />, document.getElementById('app')!);
