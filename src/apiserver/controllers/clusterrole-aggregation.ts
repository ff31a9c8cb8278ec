// ClusterRole aggregation (kube-controller-manager's clusterrole-aggregation controller): a
// ClusterRole with `aggregationRule.clusterRoleSelectors` gets as its rules the union of the rules
// of every other ClusterRole whose labels match one of the selectors, kept current as ClusterRoles
// change. The computation is pure; the loop keeps its own copy of the ClusterRoles (fed by a
// store watch) so a change costs no re-read of every role.

import type { KubeObject } from '../../api/meta.js';
import { labelSelectorFromObject, matchesLabels, type LabelSelectorObject } from '../../api/label-selectors.js';
import { SelectorParseError } from '../../api/selector-error.js';
import type { PolicyRule } from '../auth/rbac-rules.js';
import { loadCurrent, updateObject } from '../registry/rest-writes.js';
import type { WatchSubscription } from '../storage/types.js';
import { nameOfKey } from './key-loop.js';
import { builtinResource, systemContext, systemScope, type ControllerOptions } from './system-writes.js';

const RBAC_GROUP = 'rbac.authorization.k8s.io';
const PREFIX = `/${RBAC_GROUP}/clusterroles/`;

interface AggregationRule {
  clusterRoleSelectors?: Array<LabelSelectorObject | null>;
}

function aggregationRuleOf(role: KubeObject): AggregationRule | undefined {
  const r = role.aggregationRule;
  return r !== null && typeof r === 'object' ? (r as AggregationRule) : undefined;
}

function rulesOf(role: KubeObject): PolicyRule[] {
  return Array.isArray(role.rules) ? (role.rules as PolicyRule[]) : [];
}

/** A rule in a comparable form: keys sorted, empty lists dropped (an empty list and none mean the same). */
function ruleKey(rule: PolicyRule): string {
  const entries = Object.entries(rule as Record<string, unknown>)
    .filter(([, v]) => v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify(entries);
}

/** Whether two rule lists are the same, in order. */
export function sameRules(a: readonly PolicyRule[], b: readonly PolicyRule[]): boolean {
  return a.length === b.length && a.every((r, i) => ruleKey(r) === ruleKey(b[i]!));
}

/**
 * The rules `target` should hold: for each selector in order, the rules of the matching ClusterRoles
 * (by name, the target itself excluded), each distinct rule once. Throws SelectorParseError for a
 * malformed selector.
 */
export function aggregatedRules(target: KubeObject, roles: Iterable<KubeObject>): PolicyRule[] {
  const rule = aggregationRuleOf(target);
  const sorted = [...roles].sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
  const out: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const sel of rule?.clusterRoleSelectors ?? []) {
    const selector = labelSelectorFromObject(sel);
    for (const role of sorted) {
      if (role.metadata.name === target.metadata.name || !matchesLabels(selector, role.metadata.labels)) continue;
      for (const r of rulesOf(role)) {
        const k = ruleKey(r);
        if (seen.has(k)) continue;
        seen.add(k);
        out.push(r);
      }
    }
  }
  return out;
}

export type ClusterRoleAggregationOptions = ControllerOptions;

export function startClusterRoleAggregation(o: ClusterRoleAggregationOptions): void {
  const log = o.log.child({ controller: 'clusterrole-aggregation' });
  const sysCtx = systemContext(o.regCtx);
  const scope = systemScope(builtinResource(o.registry, RBAC_GROUP, 'clusterroles'), 'v1', '');
  const roles = new Map<string, KubeObject>();
  let sub: WatchSubscription | undefined;
  let scheduled = false;
  const timers = new Set<{ cancel(): void }>();

  const later = (fn: () => void): void => {
    const t = o.clock.setTimeout(() => {
      timers.delete(t);
      fn();
    }, o.retryMs);
    timers.add(t);
  };

  const write = (name: string, rules: PolicyRule[]): void => {
    const cur = loadCurrent(sysCtx, scope, name);
    if (!aggregationRuleOf(cur.object)) return;
    updateObject(sysCtx, scope, name, { ...cur.object, rules }, { subresource: '', allowEmptyResourceVersion: true }, cur);
    log.debug('aggregated clusterrole', { key: name, rules: rules.length });
  };

  const reconcile = (): void => {
    scheduled = false;
    if (o.signal.aborted) return;
    let failed = false;
    for (const role of roles.values()) {
      if (!aggregationRuleOf(role)) continue;
      const name = role.metadata.name ?? '';
      try {
        const rules = aggregatedRules(role, roles.values());
        if (!sameRules(rules, rulesOf(role))) write(name, rules);
      } catch (err) {
        // A malformed selector stays malformed until the role changes, which triggers a new run.
        if (err instanceof SelectorParseError) {
          log.warn('clusterrole has an invalid aggregation selector', { key: name, err });
          continue;
        }
        log.warn('aggregation failed; retrying', { key: name, err });
        failed = true;
      }
    }
    if (failed) later(schedule);
  };

  // Every change may alter what any aggregating role selects; the set of those roles is small, so
  // each change re-checks them all, once per burst of changes.
  const schedule = (): void => {
    if (scheduled || o.signal.aborted) return;
    scheduled = true;
    setImmediate(reconcile);
  };

  const sync = (): void => {
    if (o.signal.aborted) return;
    sub?.close();
    roles.clear();
    const listed = o.store.list(PREFIX);
    for (const it of listed.items) roles.set(nameOfKey(it.key), it.object);
    sub = o.store.watch(PREFIX, {
      fromRevision: listed.revision,
      onEvent: (ev) => {
        if (ev.type === 'DELETED') roles.delete(nameOfKey(ev.key));
        else roles.set(nameOfKey(ev.key), ev.object);
        schedule();
      },
      onClose: (reason) => {
        if (o.signal.aborted) return;
        log.warn('clusterrole watch closed; re-listing', { reason });
        later(sync);
      },
    });
    schedule();
  };

  sync();
  o.signal.addEventListener('abort', () => {
    sub?.close();
    for (const t of timers) t.cancel();
    timers.clear();
  }, { once: true });
}
