/**
 * Writing a custom resource's status: through the status subresource, as a merge patch of the fields the
 * reconciler owns, and only when one of them changed (an unchanged write would wake every watcher).
 */
import { isStatus, KubeApi, KubeObject, Resource, resourcePath } from '../kube/api';
import { canonical } from '../kube/canonical';

/** True when `current` (a status as stored) already holds every field of `next` (in any order of their keys). */
export function statusHolds(current: Record<string, unknown> | undefined, next: object): boolean {
  if (!current) return false;
  return Object.entries(next).every(([k, v]) => canonical(current[k]) === canonical(v));
}

/** Patches `status` onto `obj`; false when the object is gone (deleted meanwhile). */
export async function patchStatus(
  kube: KubeApi,
  resource: Resource,
  obj: KubeObject,
  status: object,
): Promise<boolean> {
  try {
    await kube.patch(resourcePath(resource, obj.metadata.namespace, obj.metadata.name, 'status'), { status }, 'merge');
    return true;
  } catch (err) {
    if (isStatus(err, 404)) return false;
    throw err;
  }
}
