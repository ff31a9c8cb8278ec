// The 403 a denied request gets, in kube-apiserver's wording.

import { errors, type ApiError } from '../http/errors.js';
import type { RequestAttributes } from '../pipeline.js';

/** `User "<u>" cannot <verb> resource "<r>[/<sub>]" in API group "<g>" in the namespace "<ns>"` (or `at the cluster scope`). */
function forbiddenMessage(attrs: RequestAttributes): string {
  const resource = attrs.subresource ? `${attrs.resource}/${attrs.subresource}` : attrs.resource;
  const scope = attrs.namespace ? `in the namespace "${attrs.namespace}"` : 'at the cluster scope';
  return `User "${attrs.user.username}" cannot ${attrs.verb} resource "${resource}" in API group "${attrs.apiGroup}" ${scope}`;
}

/** The ApiError for a request the authorizer did not allow; `reason` (if any) is appended after `: `. */
export function forbiddenError(attrs: RequestAttributes, reason = ''): ApiError {
  if (!attrs.resourceRequest) return errors.forbiddenPath(attrs.user.username, attrs.verb, attrs.path);
  const msg = forbiddenMessage(attrs) + (reason ? `: ${reason}` : '');
  return errors.forbidden({ group: attrs.apiGroup, resource: attrs.resource }, attrs.name || undefined, msg);
}
