// Every check of the differential test, in the order they run (later groups use what earlier ones
// created: the diff-crud namespace, the widget CRD and the diff-crd namespace).
import type { Step } from '../types.js';
import { authSteps, diffUserCsr } from './auth.js';
import { builtinSteps } from './builtins.js';
import { crdSteps } from './crds.js';
import { errorSteps } from './errors.js';
import { kubectlSteps } from './kubectl.js';
import { lifecycleSteps } from './lifecycle.js';
import { listSteps } from './lists.js';
import { managedFieldsSteps } from './managed-fields.js';

export async function allSteps(): Promise<Step[]> {
  const csr = await diffUserCsr();
  return [...builtinSteps(), ...crdSteps(), ...managedFieldsSteps(), ...errorSteps(), ...listSteps(), ...lifecycleSteps(), ...authSteps(csr), ...kubectlSteps(csr)];
}
