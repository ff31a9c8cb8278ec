// Runs one generated request and checks every property on it: the answer's shape (response-oracle),
// the server still answering /healthz, the event loop never blocked beyond the budget, no write
// outside the requester's rights (store-audit), no polluted prototype. Known failures (being fixed
// elsewhere) are set aside and counted. In collect mode, violations are gathered instead of thrown.

import { Agent } from 'node:https';
import { toYaml } from '../../src/util/yaml.js';
import type { Store } from '../../src/apiserver/storage/types.js';
import { applyMutations } from './gen-bodies.js';
import type { FuzzTarget } from './fuzz-target.js';
import type { FuzzCase, RawCase } from './gen-requests.js';
import { sendRaw, sendRequest, type FuzzRequest, type FuzzResponse, type RawResponse } from './http-exchange.js';
import type { Identity, UserRef } from './identities.js';
import { matchKnownFailure, type FailureContext, type KnownFailure } from './known-failures.js';
import { prototypeAdditions, prototypeSnapshot, type LoopMonitor, type PrototypeSnapshot } from './process-probes.js';
import { describeRaw, describeRequest, describeResponse, FindingCollector } from './report.js';
import { checkRawResponse, checkResponse, type Violation } from './response-oracle.js';
import { issuedCertificateViolations } from './issued-certificates.js';
import { auditWrites, recordStore, type StoreRecorder } from './store-audit.js';

/** Longest the event loop may be blocked while one request is served. */
const MAX_BLOCK_MS = 100;
const REQUEST_DEADLINE_MS = 15_000;
const HEALTH_DEADLINE_MS = 5_000;
// Generous: the raw exchange includes a TLS handshake with a client certificate, which on a machine
// loaded by the suite's parallel test files can take well over a second; a real hang still shows.
const RAW_DEADLINE_MS = 10_000;
const STREAM_PEEK_MS = 100;
/** Violations that a stalled test machine can cause as well as a faulty server. */
const TIMING_KINDS: ReadonlySet<string> = new Set(['raw-hang', 'raw-dropped', 'event-loop-blocked', 'server-down', 'connection-stuck']);

/** Runs an exchange again when all it found depends on timing; only a repeat counts. */
async function againIfTimingOnly<T extends { violations: Violation[] }>(exchange: () => Promise<T>): Promise<T> {
  const first = await exchange();
  if (first.violations.length === 0 || !first.violations.every((v) => TIMING_KINDS.has(v.kind))) return first;
  return exchange();
}

export interface RunnerOptions {
  collect: boolean;
  known: readonly KnownFailure[];
}

export class FuzzRunner {
  /** Distinct violations of the current property (collect mode); replaced by `startProperty`. */
  findings = new FindingCollector();
  /** Known-failure id → hits. */
  readonly knownHits = new Map<string, number>();
  private readonly recorder: StoreRecorder;
  private readonly prototypes: PrototypeSnapshot = prototypeSnapshot();
  requests = 0;
  notSent = 0;
  /** Answers by identity and status class (`agent 2xx`), to see what the generators reach. */
  readonly outcomes = new Map<string, number>();
  /** Successful writes of non-superusers checked against SubjectAccessReviews. */
  rightsChecked = 0;
  /** Certificates the signer issued (all checked). */
  readonly certificatesIssued = { count: 0 };

  /** The admin on connections of its own, for /healthz. */
  private readonly healthIdentity: Identity;

  constructor(private readonly target: FuzzTarget, private readonly loop: LoopMonitor, private readonly opts: RunnerOptions) {
    this.recorder = recordStore(target.server.store);
    this.certificatesChecked = target.server.store.currentRevision();
    const admin = target.identities.admin;
    this.healthIdentity = { ...admin, agent: new Agent({ keepAlive: true, maxSockets: 1, ...admin.tls }) };
  }

  close(): void {
    this.recorder.close();
    this.healthIdentity.agent.destroy();
  }

  startProperty(): void {
    this.findings = new FindingCollector();
  }

  private get store(): Store {
    return this.target.server.store;
  }

  /**
   * Probes the server and the process after a request: /healthz on a connection of its own, then a
   * request on the fuzzing identity's kept-alive connections (a response that never ends leaves
   * its connection unusable), event-loop blocking and prototypes. Store changes are audited by the caller.
   */
  private async probes(id: Identity | undefined): Promise<{ violations: Violation[]; blockedMs: number }> {
    const out: Violation[] = [];
    const probe: FuzzRequest = { method: 'GET', path: '/healthz', query: '', headers: {} };
    const health = await sendRequest(this.target, this.healthIdentity, probe, { deadlineMs: HEALTH_DEADLINE_MS });
    if (health.status !== 200 || health.body.toString() !== 'ok') out.push({ kind: 'server-down', detail: `/healthz answered ${describeResponse(health)}` });
    if (id) {
      const again = await sendRequest(this.target, id, probe, { deadlineMs: HEALTH_DEADLINE_MS });
      if (again.status === undefined) out.push({ kind: 'connection-stuck', detail: `the next request on the same kept-alive connections got ${describeResponse(again)}` });
    }
    const m = this.loop.measure();
    const blockedMs = m.blockedMs;
    if (blockedMs > MAX_BLOCK_MS) {
      out.push({ kind: 'event-loop-blocked', detail: `event loop blocked ${blockedMs.toFixed(0)} ms (limit ${MAX_BLOCK_MS} ms; longest tick gap ${m.wallMs.toFixed(0)} ms, CPU ${m.cpuMs.toFixed(0)} ms, GC ${m.gcMs.toFixed(0)} ms)` });
    }
    const added = prototypeAdditions(this.prototypes);
    if (added.length > 0) out.push({ kind: 'prototype-polluted', detail: added.join(', ') });
    return { violations: out, blockedMs };
  }

  /** Waits until the server's own controllers stop writing (bounded). */
  private async settle(): Promise<void> {
    const deadline = Date.now() + 1000;
    for (;;) {
      const r = this.store.currentRevision();
      await new Promise((resolve) => setTimeout(resolve, 30));
      if (this.store.currentRevision() === r || Date.now() > deadline) break;
    }
  }

  /** Revision up to which every write was checked for issued certificates. */
  private certificatesChecked = 0;

  /**
   * Every write since the last request — the controllers' ones too, whenever they land (the signer
   * issues after the approval's answer) — is checked for forbidden certificates, then forgotten.
   */
  private async checkAllWrites(): Promise<Violation[]> {
    const now = this.store.currentRevision();
    if (now <= this.certificatesChecked) return [];
    const events = await this.recorder.eventsBetween(this.certificatesChecked, now);
    this.certificatesChecked = now;
    this.recorder.drop(now);
    return issuedCertificateViolations(events, this.certificatesIssued);
  }

  private setAsideKnown(c: Omit<FailureContext, 'violation'>, vs: Violation[]): Violation[] {
    return vs.filter((v) => {
      const k = matchKnownFailure(this.opts.known, { ...c, violation: v });
      if (!k) return true;
      this.knownHits.set(k.id, (this.knownHits.get(k.id) ?? 0) + 1);
      return false;
    });
  }

  /** An update's body: the stored object (as the admin reads it now) with the case's changes. */
  private async fillFromCurrent(c: FuzzCase): Promise<void> {
    if (!c.fromCurrent) return;
    let current: Record<string, unknown> = {};
    try {
      current = await this.target.admin.request<Record<string, unknown>>('GET', c.fromCurrent.objectPath);
    } catch {
      // Gone: the changes alone make the body, and the server answers 404 or 422.
    }
    const obj = applyMutations(current, c.fromCurrent.mutations);
    c.request.body = Buffer.from(c.fromCurrent.yaml ? toYaml(obj) : JSON.stringify(obj));
    c.request.headers['content-type'] = c.fromCurrent.yaml ? 'application/yaml' : 'application/json';
  }

  /**
   * Sends one request and returns its unexpected violations (after known failures are set aside).
   * When all it found depends on timing (a blocked loop, a failed probe), it is sent again and only a
   * repeat counts, as for raw exchanges: a loaded CI machine can stall one exchange (a 105 ms block
   * of this process's CPU while a malformed path was answered 400 failed a clean-clone run once), a
   * server fault stalls both.
   */
  async check(c: FuzzCase): Promise<{ violations: Violation[]; response: FuzzResponse; blockedMs: number }> {
    return againIfTimingOnly(() => this.checkOnce(c));
  }

  private async checkOnce(c: FuzzCase): Promise<{ violations: Violation[]; response: FuzzResponse; blockedMs: number }> {
    const id = this.target.identities[c.identity];
    await this.fillFromCurrent(c);
    const before = this.store.currentRevision();
    this.loop.reset();
    const response = await sendRequest(this.target, id, c.request, { deadlineMs: REQUEST_DEADLINE_MS, streamPeekMs: STREAM_PEEK_MS });
    this.requests++;
    if (response.notSent) this.notSent++;
    // Probes first: the event-loop window then ends before this process parses the answer.
    const probe = await this.probes(id);
    const violations = [...checkResponse(c.request, response), ...probe.violations];
    const outcome = `${c.identity} ${response.status === undefined ? 'none' : `${String(response.status).slice(0, 1)}xx`}`;
    this.outcomes.set(outcome, (this.outcomes.get(outcome) ?? 0) + 1);
    const after = this.store.currentRevision();
    if (after > before) {
      const events = await this.recorder.eventsBetween(before, after);
      if (!id.superuser && response.status !== undefined && response.status < 300 && events.length > 0) this.rightsChecked++;
      violations.push(...await auditWrites(this.target.admin, this.store, {
        method: c.request.method, path: c.request.path, query: c.request.query, status: response.status, ...actingAs(id, c.request.headers), events,
      }));
      await this.settle();
    }
    violations.push(...await this.checkAllWrites());
    const kept = this.setAsideKnown({ identity: c.identity, ...c.request, status: response.status }, violations);
    return { violations: kept, response, blockedMs: probe.blockedMs };
  }

  /**
   * One raw exchange; when all it found depends on timing (no answer in time, a dropped connection,
   * a blocked loop, a failed probe), it is sent again and only a repeat counts: a loaded CI machine
   * can stall one exchange, a server fault stalls both.
   */
  async checkRaw(c: RawCase): Promise<{ violations: Violation[]; response: RawResponse }> {
    return againIfTimingOnly(() => this.checkRawOnce(c));
  }

  private async checkRawOnce(c: RawCase): Promise<{ violations: Violation[]; response: RawResponse }> {
    const before = this.store.currentRevision();
    this.loop.reset();
    const response = await sendRaw(this.target, this.target.identities[c.identity], c.bytes, RAW_DEADLINE_MS);
    this.requests++;
    const probe = await this.probes(undefined);
    const violations = [...checkRawResponse(response), ...probe.violations];
    const after = this.store.currentRevision();
    if (after > before) await this.settle();
    violations.push(...await this.checkAllWrites());
    const firstLine = c.bytes.toString('latin1').split(/\r?\n/)[0] ?? '';
    const [method = '', path = ''] = firstLine.split(' ');
    const kept = this.setAsideKnown({ identity: c.identity, method, path, query: '', headers: {}, body: c.bytes, status: response.status }, violations);
    return { violations: kept, response };
  }

  /** fast-check predicate: true when fine; otherwise throws a readable report (or records it in collect mode). */
  async property(c: FuzzCase): Promise<boolean> {
    const r = await this.check(c);
    if (r.violations.length === 0) return true;
    const report = [
      `identity: ${c.identity}`,
      describeRequest(c.request),
      `response: ${describeResponse(r.response)}`,
      `event loop max block: ${r.blockedMs.toFixed(0)} ms`,
      ...r.violations.map((v) => `VIOLATION ${v.kind}: ${v.detail}`),
    ].join('\n');
    return this.fail(r.violations, report);
  }

  async rawProperty(c: RawCase): Promise<boolean> {
    const r = await this.checkRaw(c);
    if (r.violations.length === 0) return true;
    const report = [
      `identity: ${c.identity} (raw TLS)`,
      `sent: ${JSON.stringify(c.bytes.toString('latin1').slice(0, 600))}${c.bytes.length > 600 ? ` (${c.bytes.length} bytes)` : ''}`,
      `response: ${describeRaw(r.response)}`,
      ...r.violations.map((v) => `VIOLATION ${v.kind}: ${v.detail}`),
    ].join('\n');
    return this.fail(r.violations, report);
  }

  private fail(violations: Violation[], report: string): boolean {
    if (!this.opts.collect) throw new Error(report);
    for (const v of violations) this.findings.add(`${v.kind}: ${signatureOf(v.detail)}`, report);
    return true;
  }
}

/**
 * Who a request acts as, for the rights check: a superuser may impersonate (the request then has
 * the impersonated user's rights); anyone else's impersonation headers must be refused, so their
 * own rights stay the bound.
 */
function actingAs(id: Identity, headers: Record<string, string>): { user: UserRef; superuser: boolean } {
  const name = headers['impersonate-user'];
  if (!id.superuser || !name) return { user: id.user, superuser: id.superuser };
  const groups = headers['impersonate-group'] ? [headers['impersonate-group']] : [];
  if (name !== 'system:anonymous' && !groups.includes('system:unauthenticated')) groups.push('system:authenticated');
  return { user: { username: name, groups }, superuser: groups.includes('system:masters') };
}

/** Groups details that differ only in numbers, quoted values and object keys. */
export function signatureOf(detail: string): string {
  return detail
    .replace(/\/(core|[a-z0-9.-]+\.[a-z]+)\/([a-z0-9]+)\/[^\s,]*/g, '/$1/$2/…')
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\d+/g, 'N')
    .slice(0, 200);
}
