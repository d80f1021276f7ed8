import { k8s } from 'cdk8s-plus-28';
import { WELL_KNOWN_REGION_KEY, WELL_KNOWN_ZONE_KEY } from '../contract/labels';
import { ZoneAnnotation } from '../contract/zone-annotation';
import { hasPodTopologyLabels } from '../kubernetes/kubernetes-version';
import { invalidProp } from '../shared/errors';
import { checkArg } from '../shared/props';
import { ZoneTopology } from '../topology/zone-topology';
import { describeController, IZoneController, waitForZoneCommand, CONTROLLER_PROP } from '../zone-controller/controller-reference';
import { ZONE_ANNOTATOR_FEATURE } from '../zone-controller/features';

/** How a pod learns the zone it runs in. */
export enum ZoneSourceKind {
  /** Kubernetes copies the node's zone label onto the pod at binding (KEP-4742, Kubernetes >= 1.35). */
  POD_TOPOLOGY_LABELS = 'pod-topology-labels',
  /** One workload per zone, pinned to it, with the zone written into the pod spec. */
  PER_ZONE_STATEFUL_SETS = 'per-zone-stateful-sets',
  /** The cdk8s-zones runtime controller annotates the pod with its node's zone. */
  CONTROLLER = 'controller',
}

/**
 * How the pods of a zone-aware workload learn their zone, which they must know to tell the application
 * (e.g. Loki's `instance_availability_zone`). Shared by every construct that needs a pod's zone.
 */
export class ZoneSource {
  /**
   * Kubernetes >= 1.35 copies `topology.kubernetes.io/zone` (and `/region`) from the node onto the pod
   * when it is bound (KEP-4742, PodTopologyLabelsAdmission, beta and on by default); the container reads
   * it through the downward API (`metadata.labels['topology.kubernetes.io/zone']`). No controller, no
   * init container. Needs the topology key `topology.kubernetes.io/zone`.
   */
  public static podTopologyLabels(): ZoneSource {
    return new ZoneSource(ZoneSourceKind.POD_TOPOLOGY_LABELS);
  }

  /**
   * One StatefulSet per zone (`<name>-<zone>`), pinned to its zone by required node affinity, with the
   * zone written statically into its arguments. Works on every Kubernetes version without a controller,
   * when the zone names are known at synth time; roll it out zone by zone.
   */
  public static perZoneStatefulSets(): ZoneSource {
    return new ZoneSource(ZoneSourceKind.PER_ZONE_STATEFUL_SETS);
  }

  /**
   * The cdk8s-zones runtime controller copies the node's topology labels onto the pod as an annotation
   * once it is bound (values joined with `_` for several keys). An init container running the
   * controller image's `wait-for-zone` (the application image may have no shell) waits until the
   * downward-API file of the annotation is non-empty; the main container gets the zone from the
   * annotation through an environment variable.
   *
   * @param zoneController the controller running the zone annotator: a ZoneController of this app, or
   * ZoneController.fromInstalled(...) (its image runs the init container)
   */
  public static controller(zoneController: IZoneController): ZoneSource {
    const where = 'ZoneSource.controller';
    checkArg(where, 'zoneController', zoneController, CONTROLLER_PROP);
    if (!zoneController.reconcilers.includes(ZONE_ANNOTATOR_FEATURE.reconciler)) {
      throw invalidProp(where, 'zoneController', describeController(zoneController),
        `runs no zone annotator (zoneAnnotator: false): ${ZONE_ANNOTATOR_FEATURE.without}. Turn zoneAnnotator on for it`);
    }
    return new ZoneSource(ZoneSourceKind.CONTROLLER, zoneController);
  }

  /** Which mechanism this is. */
  public readonly kind: ZoneSourceKind;
  /** The controller (only for `ZoneSourceKind.CONTROLLER`). */
  public readonly zoneController?: IZoneController;

  private constructor(kind: ZoneSourceKind, zoneController?: IZoneController) {
    this.kind = kind;
    this.zoneController = zoneController;
  }
}

/** The downward-API volume that holds the zone annotation (controller source). */
export const ZONE_VOLUME = 'zone';
/** Where the init container mounts that volume. */
export const ZONE_MOUNT_PATH = '/etc/cdk8s-zones';
/** The file of the volume with the annotation's value. */
export const ZONE_FILE = 'zone';
/** How long the init container waits for the controller's annotation before the pod restarts it. */
export const WAIT_FOR_ZONE_TIMEOUT_SECONDS = 600;

/** The pod-spec pieces that give a container its zone in an environment variable (internal). */
export interface ZoneWiring {
  /** Labels the pod template needs (the controller's opt-in). */
  readonly podLabels: { [key: string]: string };
  /** Annotations the pod template needs (the controller's keys). */
  readonly podAnnotations: { [key: string]: string };
  /** The environment variable that carries the zone, to add to the main container. */
  readonly env: k8s.EnvVar;
  readonly initContainers: k8s.Container[];
  readonly volumes: k8s.Volume[];
}

/** What `zoneWiring` needs to know about the pod. */
export interface ZoneWiringProps {
  /** Names the caller in error messages, e.g. `ZoneAwareLokiStack 'chart/loki'`. */
  readonly where: string;
  readonly source: ZoneSource;
  readonly topology: ZoneTopology;
  /** The environment variable to set. */
  readonly envName: string;
  /** The zone of this pod's workload (per-zone StatefulSets only). */
  readonly zone?: string;
  /** Security context and resources of the init container (controller source). */
  readonly initSecurityContext: k8s.SecurityContext;
  readonly initResources: k8s.ResourceRequirements;
}

/** Refuses a zone source that cannot work with `topology` or the cluster's Kubernetes version (the topology's). */
export function checkZoneSource(where: string, source: ZoneSource | undefined, topology: ZoneTopology): ZoneSource {
  const release = topology._release;
  if (source === undefined || source === null) {
    throw invalidProp(where, 'zoneSource', source, 'must be set: ZoneSource.podTopologyLabels(), ZoneSource.perZoneStatefulSets() or ZoneSource.controller(zoneController)');
  }
  if (source.kind === ZoneSourceKind.POD_TOPOLOGY_LABELS) {
    if (release !== undefined && !hasPodTopologyLabels(release)) {
      throw invalidProp(where, 'zoneSource', 'podTopologyLabels',
        `needs Kubernetes >= 1.35 (KEP-4742 copies the zone label onto pods from then on), but the topology's kubernetesVersion is ${release.major}.${release.minor}: ` +
        'use ZoneSource.perZoneStatefulSets() or ZoneSource.controller(zoneController)');
    }
    if (topology.topologyKey !== WELL_KNOWN_ZONE_KEY) {
      throw invalidProp(where, 'zoneSource', 'podTopologyLabels',
        `only copies ${WELL_KNOWN_ZONE_KEY} and ${WELL_KNOWN_REGION_KEY} onto pods, not the topology key ${JSON.stringify(topology.topologyKey)}: ` +
        'use ZoneSource.perZoneStatefulSets() or ZoneSource.controller(zoneController)');
    }
  }
  return source;
}

/** The pod-spec pieces that hand a container its zone, for the chosen source (pure). */
export function zoneWiring(props: ZoneWiringProps): ZoneWiring {
  const source = checkZoneSource(props.where, props.source, props.topology);
  const none = { podLabels: {}, podAnnotations: {}, initContainers: [], volumes: [] };
  switch (source.kind) {
    case ZoneSourceKind.POD_TOPOLOGY_LABELS:
      return {
        ...none,
        env: { name: props.envName, valueFrom: { fieldRef: { fieldPath: `metadata.labels['${WELL_KNOWN_ZONE_KEY}']` } } },
      };
    case ZoneSourceKind.PER_ZONE_STATEFUL_SETS:
      if (props.zone === undefined || !props.topology.hasZone(props.zone)) {
        throw invalidProp(props.where, 'zone', props.zone, `is not one of the topology's zones [${props.topology.zones.join(', ')}]`);
      }
      return { ...none, env: { name: props.envName, value: props.zone } };
    case ZoneSourceKind.CONTROLLER: {
      const keys = [props.topology.topologyKey];
      const file = `${ZONE_MOUNT_PATH}/${ZONE_FILE}`;
      return {
        podLabels: { [ZoneAnnotation.OPT_IN_LABEL]: ZoneAnnotation.OPT_IN_VALUE },
        podAnnotations: { [ZoneAnnotation.KEYS_ANNOTATION]: keys.join(',') },
        env: { name: props.envName, valueFrom: { fieldRef: { fieldPath: `metadata.annotations['${ZoneAnnotation.VALUE_ANNOTATION}']` } } },
        initContainers: [{
          name: 'wait-for-zone',
          image: source.zoneController!.image,
          command: waitForZoneCommand(file, WAIT_FOR_ZONE_TIMEOUT_SECONDS),
          securityContext: props.initSecurityContext,
          resources: props.initResources,
          volumeMounts: [{ name: ZONE_VOLUME, mountPath: ZONE_MOUNT_PATH, readOnly: true }],
        }],
        volumes: [{
          name: ZONE_VOLUME,
          downwardApi: { items: [{ path: ZONE_FILE, fieldRef: { fieldPath: `metadata.annotations['${ZoneAnnotation.VALUE_ANNOTATION}']` } }] },
        }],
      };
    }
  }
}
