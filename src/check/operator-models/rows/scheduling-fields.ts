import { PodModel } from '../model';

/**
 * The scheduling fields many operators copy from one object of their resource into the pod spec as written (a
 * component's `affinity`, `tolerations`, `nodeSelector`, `topologySpreadConstraints`, `resources`).
 */
export function schedulingFieldsAt(at: string, resources = `${at}.resources`): NonNullable<PodModel['fields']> {
  return {
    affinity: `${at}.affinity`,
    tolerations: `${at}.tolerations`,
    nodeSelector: `${at}.nodeSelector`,
    topologySpreadConstraints: `${at}.topologySpreadConstraints`,
    resources,
  };
}
