import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { buildAgentFlagsCommand } from './agent-command.js';
import { parseAgentFlags } from './agent-flag-parser.js';
import { agentFlags, flagName, takesValue, type AgentFlag, type RawFlags } from './agent-flags.js';

/** commander's parse of `args`: the flags its action receives, or the error it throws. */
function commanderFlags(args: readonly string[]): RawFlags | Error {
  let got: RawFlags | undefined;
  const cmd = buildAgentFlagsCommand(async (raw) => {
    got = raw;
  });
  cmd.exitOverride().configureOutput({ writeErr: () => {}, writeOut: () => {} });
  try {
    // The action is synchronous up to its first await, so the flags are there when parse returns.
    cmd.parse([...args], { from: 'user' });
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
  assert.ok(got, 'commander ran no action');
  return got;
}

/** The commander-free parser gives commander's flags, or leaves `args` to commander. */
function assertAgrees(args: readonly string[], mustHandle: boolean): void {
  const fast = parseAgentFlags(args);
  const slow = commanderFlags(args);
  if (fast === undefined) {
    assert.ok(!mustHandle, `not handled: ${JSON.stringify(args)} (commander: ${slow instanceof Error ? slow.message : 'parsed'})`);
    return;
  }
  assert.ok(!(slow instanceof Error), `accepted ${JSON.stringify(args)}, which commander rejects: ${slow instanceof Error ? slow.message : ''}`);
  assert.deepStrictEqual(fast, slow, JSON.stringify(args));
}

const FLAGS = agentFlags();

/** Text for a flag's value that its parser accepts. */
function goodValue(flag: AgentFlag): fc.Arbitrary<string> {
  const text = fc.oneof(fc.string(), fc.constantFrom('', '-', '-h', '--help', '--', 'a=b', 'x_y', '--kube_api_qps', ' spaced '));
  switch (flag.value) {
    case 'int':
      return fc.oneof(fc.integer({ min: -5, max: 100_000 }).map(String), fc.constantFrom('+3', ' 7', '007'));
    case 'float':
      return fc.oneof(fc.integer({ min: 0, max: 1000 }).map(String), fc.constantFrom('20.5', '.5', '1e3', '2.', '-1.5', ' 4 '));
    case 'duration':
      return fc.constantFrom('0', '0s', '1s', '100ms', '1m30s', '2h', '1.5s', '90s');
    case 'map':
      return fc.array(fc.tuple(fc.constantFrom('agent.open-cluster-management.io/a', 'b', 'a'), fc.constantFrom('', 'x', 'y=z')), { maxLength: 3 }).map((kv) => kv.map(([k, v]) => `${k}=${v}`).join(','));
    case 'csv-list':
      return fc.array(fc.constantFrom('a.io', ' b.io ', '', 'c'), { maxLength: 3 }).map((xs) => xs.join(','));
    case 'list':
    case undefined:
      return text;
  }
}

/** Text its parser rejects, for the flags that check their value. */
function badValue(flag: AgentFlag): fc.Arbitrary<string> {
  switch (flag.value) {
    case 'int':
      return fc.constantFrom('many', '1.5', '', '0x10');
    case 'float':
      return fc.constantFrom('fast', '1,5', '', 'NaN');
    case 'duration':
      return fc.constantFrom('10', 'soon', '', '1d');
    case 'map':
      return fc.constantFrom('novalue', 'a=b,c');
    default:
      return goodValue(flag);
  }
}

/** A flag's name as it may be written: `_` for some `-`, and `--cluster-name` for `--spoke-cluster-name`. */
function writtenName(flag: AgentFlag): fc.Arbitrary<string> {
  const names = flagName(flag) === '--spoke-cluster-name' ? ['--spoke-cluster-name', '--cluster-name'] : [flagName(flag)];
  return fc.tuple(fc.constantFrom(...names), fc.boolean(), fc.boolean()).map(([name, under, all]) => {
    if (!under) return name;
    const body = name.slice(2);
    return `--${all ? body.replace(/-/g, '_') : body.replace('-', '_')}`;
  });
}

/**
 * One flag as the command line may give it: `--name=value`, `--name value`, or a switch. With
 * `unambiguous`, a value that looks like a flag is always written `--name=value`: apart from its
 * flag it is commander's to read.
 */
function occurrence(values: (flag: AgentFlag) => fc.Arbitrary<string>, unambiguous = false): fc.Arbitrary<string[]> {
  return fc.constantFrom(...FLAGS).chain((flag) => {
    if (!takesValue(flag)) return writtenName(flag).map((name) => [name]);
    return fc.tuple(writtenName(flag), values(flag), fc.boolean()).map(([name, value, inline]) => {
      const looksLikeFlag = value.startsWith('-') && value !== '-';
      return inline || (unambiguous && looksLikeFlag) ? [`${name}=${value}`] : [name, value];
    });
  });
}

/** Tokens commander alone must read: mistakes, help, and forms the fast parser does not take. */
const ODD_TOKENS = fc.constantFrom(
  ['--'],
  ['-h'],
  ['--help'],
  ['positional'],
  ['-'],
  ['--unknown-flag'],
  ['--unknown=1'],
  ['--disable-leader-election=true'],
  ['--no-exit-on-restart'],
  ['--config=/c.yaml'],
  ['-v', '2'],
  ['--log_dir=/x'],
  ['--kubeconfig'],
  ['-k'],
  ['--kube-api-qps', '-5'],
  ['--listen', '--log-level=debug'],
);

const args = (parts: ReadonlyArray<readonly string[]>): string[] => parts.flat();

test('should parse well-formed argument lists as commander does', () => {
  const plain = fc.array(occurrence(goodValue, true), { maxLength: 12 }).map(args);
  fc.assert(
    fc.property(plain, (list) => assertAgrees(list, true)),
    { numRuns: 400, seed: 20250218 },
  );
});

test('should never accept what commander rejects, nor read it differently', () => {
  const anyList = fc.array(fc.oneof({ weight: 4, arbitrary: occurrence(goodValue) }, { weight: 2, arbitrary: occurrence(badValue) }, { weight: 1, arbitrary: ODD_TOKENS }), { maxLength: 10 }).map(args);
  fc.assert(
    fc.property(anyList, (list) => assertAgrees(list, false)),
    { numRuns: 600, seed: 20250219 },
  );
});

test('should read repeated flags, both forms, underscores and the alias as commander does', () => {
  const handled: string[][] = [
    [],
    ['--spoke-cluster-name=c1', '--bootstrap-kubeconfig', '/b'],
    ['--cluster-name', 'x'],
    ['--spoke-cluster-name=a', '--cluster-name=b'],
    ['--cluster_name=b', '--spoke-cluster-name', 'a'],
    ['--spoke_cluster_name=c_1', '--hub_kubeconfig_dir', '/d_x'],
    ['--bootstrap-kubeconfigs=/b1', '--bootstrap-kubeconfigs', '/b2', '--bootstrap_kubeconfigs=/b3'],
    ['--feature-gates=ClusterClaim=true', '--feature-gates', 'AddonManagement=false'],
    ['--reserved-cluster-claim-suffixes=a.io, b.io', '--reserved-cluster-claim-suffixes', ',c.io,'],
    ['--cluster-annotations=a=1,b=2', '--cluster-annotations', 'a=3'],
    ['--kube-api-qps=20.5', '--kube-api-qps', '7', '--kube-api-burst=60'],
    ['--disable-leader-election', '--disable_leader_election', '--exit-on-restart'],
    ['--leader-election-lease-duration=15s', '--leader-election-renew-deadline', '10s', '--leader-election-retry-period=2s'],
    ['--listen=', '--tls-min-version', 'VersionTLS13'],
    ['--kubeconfig=--help', '--namespace=-h', '--agent-id=-'],
    ['--kubeconfig', '-'],
    ['--liveness-period=0', '--liveness-failure-threshold', '5', '--hub-timeout-startup-grace=1s'],
    ['--terminate-on-files=/a', '--terminate-on-files=/b', '--terminate-on-files-poll-period=100ms'],
    ['--component-namespace', 'agent-ns', '--log-level=debug'],
  ];
  for (const list of handled) assertAgrees(list, true);
  // Values the agent's own validation refuses later still parse as flags.
  assertAgrees(['--log-level=loud', '--metrics-auth=maybe', '--feature-gates=Nope=true'], true);
});

test('should leave mistakes and help to commander', () => {
  const refused: string[][] = [
    ['--help'],
    ['-h'],
    ['--kubeconfig', '/k', '--help'],
    ['--'],
    ['--', 'x'],
    ['extra'],
    ['--unknown-flag'],
    ['--kubeconfig'],
    ['--max-custom-cluster-claims=many'],
    ['--cluster-healthcheck-period=10'],
    ['--kube-api-qps=fast'],
    ['--cluster-annotations=novalue'],
    ['--disable-leader-election=false'],
    ['--config=/tmp/c.yaml'],
    ['-v', '2'],
    ['--v=4'],
    ['--log_dir=/x'],
    ['--kube-api-qps', '-5'],
    ['--kubeconfig', '--listen=:1'],
  ];
  for (const list of refused) {
    assert.equal(parseAgentFlags(list), undefined, JSON.stringify(list));
    assertAgrees(list, false);
  }
});
