// The `ManagedClusterImportSucceeded` condition of each import outcome, with OCM's reasons and
// message prefixes. Pure.

import type { Condition } from '../../api/meta.js';

export const IMPORT_CONDITION = 'ManagedClusterImportSucceeded';

export type ImportOutcome =
  /** The kubeconfig could not be read (Secret missing, no `value`, not a usable kubeconfig). */
  | { kind: 'kubeconfigGetFailed'; error: string }
  /** The CAPI Cluster is gone or not Provisioned yet. */
  | { kind: 'kubeconfigNotFound' }
  | { kind: 'renderFailed'; error: string }
  | { kind: 'importFailed'; error: string }
  | { kind: 'imported' };

export function importCondition(o: ImportOutcome): Condition {
  const c = (status: Condition['status'], reason: string, message: string): Condition => ({ type: IMPORT_CONDITION, status, reason, message });
  switch (o.kind) {
    case 'kubeconfigGetFailed':
      return c('False', 'KubeConfigGetFailed', `failed to get kubeconfig. See errors:\n${o.error}`);
    case 'kubeconfigNotFound':
      return c('False', 'KubeConfigNotFound', 'Secret for kubeconfig is not found.');
    case 'renderFailed':
      return c('False', 'ConfigRendererFailed', `failed to render config. See errors:\n${o.error}`);
    case 'importFailed':
      return c('False', 'ImportFailed', `failed to import the klusterlet. See errors:\n${o.error}`);
    case 'imported':
      return c('True', 'ImportSucceed', '');
  }
}
