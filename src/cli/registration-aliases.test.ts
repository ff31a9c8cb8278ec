import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rewriteRegistrationArgs } from './registration-aliases.js';

test("rewriteRegistrationArgs: OCM's registration components map onto our commands", () => {
  const table: [string[], string[]][] = [
    [['registration', 'controller', '--kubeconfig=k'], ['hub', '--kubeconfig=k']],
    [['/registration', 'agent', '--spoke-cluster-name=c1'], ['agent', '--spoke-cluster-name=c1']],
    [['registration', 'webhook-server', '--port=9443'], ['webhook', '--port=9443']],
    [['hub', 'registration'], ['hub', 'registration']],
    [[], []],
  ];
  for (const [input, expected] of table) assert.deepEqual(rewriteRegistrationArgs(input), expected, input.join(' '));
});

test('rewriteRegistrationArgs: a missing or unknown component is a usage error naming the known ones', () => {
  assert.throws(() => rewriteRegistrationArgs(['registration']), /^CliUsageError: registration needs a component: controller, agent, webhook-server$|registration needs a component/);
  assert.throws(() => rewriteRegistrationArgs(['registration', 'work']), /registration: unknown component "work" \(known: controller, agent, webhook-server\)/);
});

test('ocm-ts registration controller|agent|webhook-server run our hub, agent and webhook commands', async () => {
  const { spawnSync } = await import('node:child_process');
  const { fileURLToPath } = await import('node:url');
  const main = fileURLToPath(new URL('./main.ts', import.meta.url));
  const run = (...args: string[]): { status: number | null; stdout: string; stderr: string } =>
    spawnSync(process.execPath, ['--import', 'tsx', main, ...args], { encoding: 'utf8', timeout: 60_000 });
  const hub = run('registration', 'controller', '--help');
  assert.equal(hub.status, 0, hub.stderr);
  assert.match(hub.stdout, /^Usage: ocm-ts hub /m);
  const agent = run('/registration', 'agent', '--help');
  assert.match(agent.stdout, /^Usage: ocm-ts agent /m);
  const webhook = run('registration', 'webhook-server', '--help');
  assert.match(webhook.stdout, /^Usage: ocm-ts webhook /m);
  const bad = run('registration', 'work');
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr, 'error: registration: unknown component "work" (known: controller, agent, webhook-server)\n');
});
