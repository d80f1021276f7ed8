import { invalidProp } from '../shared/errors';

/** A Kubernetes release, major and minor (patch levels do not change API behaviour the library relies on). */
export interface KubernetesRelease {
  readonly major: number;
  readonly minor: number;
}

/** Parses '1.35', '1.35.4', 'v1.35.0' or '1.35.2-gke.1000'; throws in the library's style on anything else. */
export function parseKubernetesVersion(where: string, prop: string, version: string): KubernetesRelease {
  const match = /^v?(\d+)\.(\d+)(\.\d+)?([-+][0-9A-Za-z.-]+)?$/.exec(version);
  if (!match) throw invalidProp(where, prop, version, "is not a Kubernetes version like '1.35' or 'v1.35.2'");
  return { major: Number(match[1]), minor: Number(match[2]) };
}

/** True when `release` is `major.minor` or newer. */
export function isAtLeast(release: KubernetesRelease, major: number, minor: number): boolean {
  return release.major > major || (release.major === major && release.minor >= minor);
}

/**
 * KEP-4742 (PodTopologyLabelsAdmission, beta and on by default since Kubernetes 1.35) copies the node's
 * topology.kubernetes.io/zone and /region labels onto every pod at binding, so a pod's zone is known
 * without reading its node.
 */
export function hasPodTopologyLabels(release: KubernetesRelease): boolean {
  return isAtLeast(release, 1, 35);
}

/**
 * Whether a topology spread constraint's `nodeTaintsPolicy: Honor` is GA (KEP-3094, 1.33): nodes with a taint the
 * pod does not tolerate leave the skew, so a zone whose nodes a zonal shift taints (or a lost zone's unreachable
 * nodes) no longer holds the other zones back.
 */
export function spreadsHonorNodeTaints(release: KubernetesRelease): boolean {
  return isAtLeast(release, 1, 33);
}

/**
 * The Service `spec.trafficDistribution` that keeps a client's traffic in its own zone while the zone has an
 * endpoint (the EndpointSlice controller hints every endpoint for its zone): `PreferSameZone` from 1.34 (KEP-3015,
 * beta and on by default; GA in 1.35), its older name `PreferClose` from 1.31 (KEP-4444, beta and on by default);
 * undefined before, where the API server does not know the field.
 */
export function zoneLocalTrafficDistribution(release: KubernetesRelease): string | undefined {
  if (isAtLeast(release, 1, 34)) return 'PreferSameZone';
  if (isAtLeast(release, 1, 31)) return 'PreferClose';
  return undefined;
}
