// OCM's `registration` binary names its components `registration controller`, `registration agent`
// and `registration webhook-server`; its Deployments pass them as arguments (`args: ["/registration",
// "controller", ...]`). With `ocm-ts` as the image's entrypoint those arguments reach us as they
// are, so they are rewritten onto our commands before parsing. Pure.

import { CliUsageError } from './usage-error.js';

const ALIASES: Readonly<Record<string, string>> = {
  controller: 'hub',
  agent: 'agent',
  'webhook-server': 'webhook',
};

const isRegistration = (arg: string | undefined): boolean => arg === 'registration' || arg === '/registration';

/** `registration controller ARGS` → `hub ARGS` (and agent, webhook-server); other argument lists unchanged. */
export function rewriteRegistrationArgs(argv: readonly string[]): string[] {
  if (!isRegistration(argv[0])) return [...argv];
  const sub = argv[1];
  const target = sub === undefined ? undefined : ALIASES[sub];
  if (target === undefined) {
    const known = Object.keys(ALIASES).join(', ');
    throw new CliUsageError(sub === undefined ? `registration needs a component: ${known}` : `registration: unknown component ${JSON.stringify(sub)} (known: ${known})`);
  }
  return [target, ...argv.slice(2)];
}
