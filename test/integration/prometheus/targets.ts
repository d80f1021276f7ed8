/**
 * Synthetic scrape targets for the sharding proof: `__address__` plus the discovery labels a Kubernetes
 * target carries, in every form the zone rules must handle, and a model of which zone's shards must keep
 * each target (independent of the rule generator, so the real Prometheus is checked against it).
 */

/** How a target's zone is (or is not) visible in its labels. */
export type ZoneForm =
  | 'endpointslice' // EndpointSlice endpoint zone only
  | 'node' //          node label (attach_metadata) only
  | 'both' //          both, agreeing
  | 'pod' //           pod label only (Kubernetes >= 1.35, KEP-4742)
  | 'none' //          no zone at all
  | 'unknown' //       a zone outside the topology
  | 'decoy' //         a zone that a dotted zone name would match if it were not regex-escaped
  | 'disabled'; //     sharding disabled: every shard scrapes it

export interface SyntheticTarget {
  readonly address: string;
  readonly form: ZoneForm;
  /** The zone in its labels (undefined for 'none'). */
  readonly zone?: string;
  readonly labels: { [name: string]: string };
}

/** A small deterministic generator (Park-Miller), so every run tests the same targets. */
function random(seed: number): () => number {
  let state = (seed % 2147483646) + 1;
  return () => {
    state = (state * 48271) % 2147483647;
    return (state - 1) / 2147483646;
  };
}

const FORMS: [ZoneForm, number][] = [
  ['endpointslice', 40], ['node', 25], ['both', 15], ['pod', 5], ['none', 5], ['unknown', 3], ['decoy', 4], ['disabled', 3],
];

/** The label set of a target whose zone is visible in `form`. */
export function zoneLabels(form: ZoneForm, zone: string | undefined): { [name: string]: string } {
  const node = {
    __meta_kubernetes_node_label_topology_kubernetes_io_zone: zone!,
    __meta_kubernetes_node_labelpresent_topology_kubernetes_io_zone: 'true',
  };
  const pod = {
    __meta_kubernetes_pod_label_topology_kubernetes_io_zone: zone!,
    __meta_kubernetes_pod_labelpresent_topology_kubernetes_io_zone: 'true',
  };
  const slice = { __meta_kubernetes_endpointslice_endpoint_zone: zone! };
  switch (form) {
    case 'endpointslice': case 'unknown': case 'decoy': return slice;
    case 'node': return node;
    case 'both': return { ...slice, ...node };
    case 'pod': return pod;
    case 'none': return {};
    case 'disabled': return { ...slice, __tmp_disable_sharding: 'true' };
  }
}

/**
 * `count` targets with unique loopback addresses (port 1: nothing listens, so a scrape fails at once)
 * spread unevenly over `zones`. A decoy zone is a dotted zone's name with the dots replaced by 'X'.
 */
export function syntheticTargets(zones: string[], count: number, seed: number): SyntheticTarget[] {
  const rnd = random(seed);
  const total = FORMS.reduce((sum, [, w]) => sum + w, 0);
  const dotted = zones.filter((z) => z.includes('.'));
  return Array.from({ length: count }, (_, i) => {
    let pick = rnd() * total;
    let form = FORMS.find(([, w]) => (pick -= w) < 0)![0];
    if (form === 'decoy' && dotted.length === 0) form = 'unknown';
    // Uneven zones: the first zone gets about twice the targets of the others.
    const real = zones[Math.max(Math.floor(rnd() * (zones.length + 1)) - 1, 0)];
    const zone = form === 'none' ? undefined
      : form === 'unknown' ? 'zone-outside'
        : form === 'decoy' ? dotted[i % dotted.length].replace(/\./g, 'X')
          : real;
    const address = `127.${1 + Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${i % 256}:1`;
    return { address, form, zone, labels: zoneLabels(form, zone) };
  });
}

/**
 * The zone whose shards must scrape `target`: the first zone source with a value (EndpointSlice, then
 * the pod label on Kubernetes >= 1.35, else the node label), when it is one of `zones`; otherwise the
 * first zone (the fallback). Undefined for targets whose sharding is disabled (every shard keeps them).
 */
export function expectedZone(target: SyntheticTarget, zones: string[], podLabels: boolean): string | undefined {
  if (target.form === 'disabled') return undefined;
  const l = target.labels;
  const fromNode = l.__meta_kubernetes_node_labelpresent_topology_kubernetes_io_zone === 'true'
    ? l.__meta_kubernetes_node_label_topology_kubernetes_io_zone : undefined;
  const fromPod = l.__meta_kubernetes_pod_labelpresent_topology_kubernetes_io_zone === 'true'
    ? l.__meta_kubernetes_pod_label_topology_kubernetes_io_zone : undefined;
  const found = l.__meta_kubernetes_endpointslice_endpoint_zone || (podLabels ? fromPod : fromNode);
  return found !== undefined && zones.includes(found) ? found : zones[0];
}

/** A file_sd target file (JSON) listing `targets`, each with its own labels (`__address__` included). */
export function fileSdTargets(targets: { [name: string]: string }[]): string {
  return JSON.stringify(targets.map(({ __address__, ...labels }) => ({ targets: [__address__], labels })));
}

/** A discovered Kubernetes target: its discovery labels, and what the scrape job must make of it. */
export interface KubernetesTarget {
  readonly labels: { [name: string]: string };
  /** The address after the job's relabelling (the annotated port applied), when the job scrapes it. */
  readonly scraped?: string;
  readonly zone: string;
}

/**
 * Targets as kubernetes_sd would discover them for the standalone output's two jobs: pods (role pod,
 * node metadata attached) and the endpoints of Services (role endpointslice). Some opt out of scraping,
 * some are not running, some are IPv6, some override the port by annotation.
 */
export function kubernetesTargets(
  zones: string[],
  count: number,
  seed: number,
): { pods: KubernetesTarget[]; endpoints: KubernetesTarget[] } {
  const rnd = random(seed);
  const pods: KubernetesTarget[] = [];
  const endpoints: KubernetesTarget[] = [];
  for (let i = 0; i < count; i++) {
    const zone = zones[Math.floor(rnd() * zones.length)];
    const ipv6 = rnd() < 0.2;
    const ip = ipv6 ? `fd00::${(i + 1).toString(16)}` : `10.${Math.floor(i / 65536)}.${Math.floor(i / 256) % 256}.${i % 256}`;
    const host = ipv6 ? `[${ip}]` : ip;
    const optIn = rnd() < 0.9;
    const annotatedPort = rnd() < 0.4 ? '9100' : undefined;
    const node = zoneLabels('node', zone);
    if (i % 2 === 0) {
      const running = rnd() < 0.95;
      pods.push({
        zone,
        labels: {
          ...node,
          __address__: `${host}:8080`,
          __meta_kubernetes_namespace: 'apps',
          __meta_kubernetes_pod_name: `pod-${i}`,
          __meta_kubernetes_pod_container_name: 'app',
          __meta_kubernetes_pod_ip: ip,
          __meta_kubernetes_pod_phase: running ? 'Running' : 'Pending',
          ...(optIn ? { __meta_kubernetes_pod_annotation_prometheus_io_scrape: 'true' } : {}),
          ...(annotatedPort ? { __meta_kubernetes_pod_annotation_prometheus_io_port: annotatedPort } : {}),
        },
        scraped: optIn && running ? `${host}:${annotatedPort ?? '8080'}` : undefined,
      });
    } else {
      endpoints.push({
        zone,
        labels: {
          ...node,
          __address__: `${host}:8080`,
          __meta_kubernetes_namespace: 'apps',
          __meta_kubernetes_service_name: `svc-${i % 7}`,
          __meta_kubernetes_endpointslice_endpoint_zone: zone,
          ...(optIn ? { __meta_kubernetes_service_annotation_prometheus_io_scrape: 'true' } : {}),
          ...(annotatedPort ? { __meta_kubernetes_service_annotation_prometheus_io_port: annotatedPort } : {}),
        },
        scraped: optIn ? `${host}:${annotatedPort ?? '8080'}` : undefined,
      });
    }
  }
  return { pods, endpoints };
}
