// Reading objects that may not exist (yet, or any more) in tests.

import { isNotFound } from '../../src/client/errors.js';
import type { KubeObject } from '../../src/api/meta.js';
import type { ResourceClient } from '../../src/client/types.js';

/** The object, or undefined when the server answers 404; other errors are thrown. */
export async function getIfExists<T extends KubeObject>(rc: Pick<ResourceClient<T>, 'get'>, name: string): Promise<T | undefined> {
  try {
    return await rc.get(name);
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
