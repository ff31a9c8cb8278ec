// The differential test: every step goes, in the same order, to the real kube-apiserver (the
// oracle) and to the embedded server; their answers are normalised and compared. A difference is
// either explained (a known limit of the embedded server, listed in explained.ts and the README) or
// unexplained, which fails the suite.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { KubeControlPlane } from '../infra/kube-control-plane.js';
import { explain } from './explained.js';
import { httpTarget, send, type HttpTarget } from './http.js';
import { normaliseKubectl, runKubectl } from './kubectl-run.js';
import { diffValues, normaliseBody } from './normalise.js';
import { allSteps } from './steps/index.js';
import type { DifferentialReport, HttpAnswer, HttpStep, KubectlStep, NormalisedAnswer, Step, StepResult, Vars } from './types.js';

/** Options of the embedded server under test: compaction soon enough that an old resourceVersion is gone, as on kube-apiserver. */
export const EMBEDDED_SERVER_OPTIONS = { retention: { minRevisions: 100, minAgeMs: 0 }, compactIntervalMs: 500 };

export interface DifferentialContext {
  runDir: string;
  kube: Pick<KubeControlPlane, 'url' | 'adminKubeconfigPath'>;
  embedded: { url: string; adminKubeconfigPath: string; caPem: string };
  kubectl: string;
  log: (line: string) => void;
  /** Only the steps whose name contains this (while developing). */
  only?: string;
}

interface Side {
  name: 'kube' | 'embedded';
  url: string;
  kubeconfigPath: string;
  http: HttpTarget;
  vars: Vars;
}

function fill(template: string, vars: Vars): string {
  return template.replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
}

async function sendStep(side: Side, step: HttpStep): Promise<HttpAnswer> {
  const headers: Record<string, string | string[]> = { ...step.headers };
  if (step.as) headers['impersonate-user'] = step.as.user;
  // One header line per group, as client-go sends them.
  if (step.as?.groups?.length) headers['impersonate-group'] = step.as.groups;
  const body = step.bodyFrom ? step.bodyFrom(side.vars) : step.body;
  const req = {
    method: step.method,
    path: fill(step.path, side.vars),
    headers,
    ...(body !== undefined ? { body } : {}),
    ...(step.contentType ? { contentType: step.contentType } : {}),
    ...(step.watch ? { watch: step.watch } : {}),
  };
  const deadline = Date.now() + (step.timeoutMs ?? 60_000);
  for (;;) {
    const answer = await send(side.http, req);
    if (!step.until || step.until(answer) || Date.now() > deadline) return answer;
    await new Promise((r) => setTimeout(r, 250));
  }
}

function normaliseHttp(step: HttpStep, a: HttpAnswer): NormalisedAnswer {
  const opts = { managedFields: step.managedFields === true };
  const n: NormalisedAnswer = { status: a.status, body: normaliseBody(a.body, opts), ...(a.events ? { events: a.events.map((e) => normaliseBody(e, opts)) } : {}) };
  return step.normalise ? step.normalise(n) : n;
}

async function runHttp(sides: Side[], step: HttpStep): Promise<unknown[]> {
  const answers = await Promise.all(sides.map((s) => sendStep(s, step)));
  sides.forEach((s, i) => {
    for (const [k, f] of Object.entries(step.save ?? {})) {
      const v = f(answers[i]!);
      if (v !== undefined) s.vars[k] = v;
    }
  });
  return answers.map((a) => normaliseHttp(step, a));
}

async function runKubectlStep(ctx: DifferentialContext, sides: Side[], step: KubectlStep, index: number): Promise<unknown[]> {
  return Promise.all(
    sides.map(async (s) => {
      const dir = join(ctx.runDir, 'differential', s.name, String(index));
      mkdirSync(dir, { recursive: true });
      for (const [name, text] of Object.entries(step.files ?? {})) writeFileSync(join(dir, name), text);
      const out = await runKubectl({
        kubectl: ctx.kubectl,
        kubeconfigPath: s.kubeconfigPath,
        args: step.args.map((a) => fill(a.replaceAll('{dir}', dir), s.vars)),
        ...(step.lines !== undefined ? { lines: step.lines } : {}),
        timeoutMs: step.timeoutMs ?? 30_000,
      });
      const n = normaliseKubectl(out, s.url);
      const normalised = step.normalise ? step.normalise(n) : n;
      return { ...normalised, stdout: normalised.stdout.split('\n'), stderr: normalised.stderr.split('\n') };
    }),
  );
}

async function runStep(ctx: DifferentialContext, sides: Side[], step: Step, index: number): Promise<StepResult> {
  let answers: unknown[];
  if (step.kind === 'wait') {
    await new Promise((r) => setTimeout(r, step.ms));
    answers = [null, null];
  } else if (step.kind === 'http') {
    answers = await runHttp(sides, step);
  } else {
    answers = await runKubectlStep(ctx, sides, step, index);
  }
  const [kube, embedded] = answers;
  const diff = diffValues(kube, embedded);
  const result: StepResult = { name: step.name, kind: step.kind, equal: diff.length === 0, diff, kube, embedded };
  const reason = diff.length ? explain(step.name, diff) : undefined;
  if (reason) result.explainedBy = reason;
  return result;
}

export async function runDifferential(ctx: DifferentialContext): Promise<DifferentialReport> {
  const sides: Side[] = [
    { name: 'kube', url: ctx.kube.url, kubeconfigPath: ctx.kube.adminKubeconfigPath, http: httpTarget(ctx.kube.adminKubeconfigPath), vars: {} },
    { name: 'embedded', url: ctx.embedded.url, kubeconfigPath: ctx.embedded.adminKubeconfigPath, http: httpTarget(ctx.embedded.adminKubeconfigPath), vars: {} },
  ];
  const report: DifferentialReport = { steps: [], explained: [], unexplained: [] };
  try {
    const steps = (await allSteps()).filter((s) => !ctx.only || s.name.includes(ctx.only));
    for (const [i, step] of steps.entries()) {
      let result: StepResult;
      try {
        result = await runStep(ctx, sides, step, i);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        result = { name: step.name, kind: step.kind, equal: false, diff: [`step failed: ${message}`], kube: null, embedded: null };
      }
      report.steps.push(result);
      if (result.equal) ctx.log(`= ${step.name}`);
      else {
        ctx.log(`${result.explainedBy ? '~' : '≠'} ${step.name}${result.explainedBy ? ` (explained: ${result.explainedBy})` : ''}`);
        for (const line of result.diff) ctx.log(`    ${line}`);
        if (result.explainedBy) report.explained.push({ step: step.name, diff: result.diff, reason: result.explainedBy });
        else report.unexplained.push({ step: step.name, diff: result.diff });
      }
    }
  } finally {
    for (const s of sides) s.http.agent.destroy();
  }
  writeFileSync(join(ctx.runDir, 'differential-report.json'), JSON.stringify(report, null, 2));
  return report;
}
