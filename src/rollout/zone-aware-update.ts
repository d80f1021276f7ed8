import { ApiObject, Chart, Duration, JsonPatch } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { checkMaxUnavailable, MAX_UNAVAILABLE_PROP } from './max-unavailable';
import { MAX_GROUP_SIZE, ROLLOUT_API_VERSION, ZONE_AWARE_UPDATE_KIND } from '../contract/rollout';
import { ZoneAwareUpdateSpec } from '../contract/rollout-resources';
import { dnsSubdomainProblem, labelKeyProblem } from '../kubernetes/kubernetes-names';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { ensureValidName } from '../kubernetes/object-names';
import { standardLabels } from '../kubernetes/standard-labels';
import { transformRendered, workloadApiObject } from '../kubernetes/workload';
import { invalidProp } from '../shared/errors';
import { checkArg, checkProps, Props, PropSpec } from '../shared/props';
import { IZoneController, CONTROLLER_PROP } from '../zone-controller/controller-reference';
import { ZONE_AWARE_UPDATE_FEATURE } from '../zone-controller/features';
import { serveWith } from '../zone-controller/requirements';

/**
 * The workload a ZoneAwareUpdate rolls, in the ZoneAwareUpdate's namespace: one StatefulSet, one Deployment, or a
 * group of StatefulSets rolled as one (e.g. the per-zone StatefulSets of one component).
 */
export class RolloutTarget {
  /**
   * A StatefulSet: a cdk8s-plus one (any version from 28 to 33) or a raw `k8s.KubeStatefulSet`. It must use the
   * OnDelete update strategy (cdk8s-plus: `StatefulSetUpdateStrategy.onDelete()`): synthesis refuses any other
   * (Kubernetes would roll the pods itself, racing the controller).
   */
  public static statefulSet(statefulSet: IConstruct): RolloutTarget {
    const api = workloadApiObject('RolloutTarget.statefulSet', 'statefulSet', statefulSet, ['StatefulSet']);
    return new RolloutTarget('statefulset', [api.name], [api], undefined);
  }

  /**
   * cdk8s-plus StatefulSets rolled as one group (all OnDelete): zone after zone across all of them, never two
   * zones at once, and a zone only while every pod of the other zones is Ready. For the per-zone StatefulSets
   * of one component, whose zones replicate one another.
   */
  public static statefulSetGroup(statefulSets: IConstruct[]): RolloutTarget {
    const where = 'RolloutTarget.statefulSetGroup';
    checkArg(where, 'statefulSets', statefulSets, Props.arrayOf(Props.any()));
    const apis = statefulSets.map((s, i) => workloadApiObject(where, `statefulSets[${i}]`, s, ['StatefulSet']));
    return RolloutTarget.group(where, 'statefulSets', apis.map((a) => a.name), apis);
  }

  /**
   * StatefulSets by name (defined elsewhere; each with updateStrategy OnDelete), rolled as one group (see
   * `statefulSetGroup`).
   */
  public static statefulSetGroupNames(names: string[]): RolloutTarget {
    checkArg('RolloutTarget.statefulSetGroupNames', 'names', names, Props.arrayOf(KubeProps.dnsSubdomain()));
    return RolloutTarget.group('RolloutTarget.statefulSetGroupNames', 'names', names, []);
  }

  /** A StatefulSet by name (defined elsewhere; its updateStrategy must be OnDelete). */
  public static statefulSetName(name: string): RolloutTarget {
    checkArg('RolloutTarget.statefulSetName', 'name', name, KubeProps.dnsSubdomain());
    return new RolloutTarget('statefulset', [name], [], undefined);
  }

  /**
   * A Deployment (cdk8s-plus 28 to 33, or a raw `k8s.KubeDeployment`) with the Recreate strategy (cdk8s-plus:
   * `strategy: DeploymentStrategy.recreate()`; synthesis refuses another). The construct sets
   * `spec.paused: true` on it (cdk8s-plus has no prop for it): a paused Deployment does not roll its pods
   * itself; the controller does, by scaling its ReplicaSets (see docs/rollouts.md).
   */
  public static deployment(deployment: IConstruct): RolloutTarget {
    const api = workloadApiObject('RolloutTarget.deployment', 'deployment', deployment, ['Deployment']);
    return new RolloutTarget('deployment', [api.name], [], api);
  }

  /** A Deployment by name (defined elsewhere; it must be paused, `spec.paused: true`, with strategy Recreate). */
  public static deploymentName(name: string): RolloutTarget {
    checkArg('RolloutTarget.deploymentName', 'name', name, KubeProps.dnsSubdomain());
    return new RolloutTarget('deployment', [name], [], undefined);
  }

  private static group(where: string, prop: string, names: string[], statefulSets: ApiObject[]): RolloutTarget {
    if (names.length === 0 || names.length > MAX_GROUP_SIZE || new Set(names).size !== names.length) {
      throw invalidProp(where, prop, names, `must name 1 to ${MAX_GROUP_SIZE} distinct StatefulSets`);
    }
    return new RolloutTarget('statefulsets', names, statefulSets, undefined);
  }

  /** The workload's name (a group's first StatefulSet). */
  public readonly name: string;

  private constructor(
    /** @internal */ public readonly _field: 'statefulset' | 'statefulsets' | 'deployment',
    /** The names of the workloads rolled (one, or a group's StatefulSets). */ public readonly names: string[],
    /** @internal */ public readonly _statefulSets: ApiObject[],
    /** @internal */ public readonly _deployment: ApiObject | undefined,
  ) {
    this.name = names[0];
  }
}

/**
 * An HTTP check the controller makes on every pod of the workload before each batch: a pod counts as Ready
 * only while its Ready condition holds AND `GET http://<pod IP>:<port><path>` answers 2xx. For readiness the
 * kubelet's probe does not see, e.g. a Loki ingester ACTIVE in its ring (`/ready`). The pods' NetworkPolicy
 * must admit the controller on that port.
 */
export interface ZoneAwareUpdateReadyCheck {
  /** The path, starting with '/' (e.g. '/ready'). */
  readonly path: string;
  /** The container port (1-65535). */
  readonly port: number;
}

/** When a zone-aware rollout pauses (any condition that holds pauses it). */
export interface ZoneAwareUpdatePauseCondition {
  /**
   * A label on the workload: `key` (present) or `key=value`. Add it (e.g. with kubectl) to pause.
   *
   * @default - none
   */
  readonly label?: string;

  /**
   * An annotation on the workload: `key` (present) or `key=value`.
   *
   * @default - none
   */
  readonly annotation?: string;

  /**
   * A Prometheus instant-query URL, e.g.
   * `http://prometheus.monitoring:9090/api/v1/query?query=ALERTS{alertstate="firing",severity="page"}`:
   * the rollout pauses while the result is non-empty, and while the query fails (fail safe).
   *
   * @default - none
   */
  readonly prometheusQueryUrl?: string;
}

/** Props of `ZoneAwareUpdate`. */
export interface ZoneAwareUpdateProps {
  /**
   * The runtime controller that rolls the workload zone by zone: a `ZoneController` of this app with `zoneAwareUpdate`,
   * or `ZoneController.fromInstalled(...)` for one another app installs (serving this namespace).
   */
  readonly controller: IZoneController;

  /** The StatefulSet or Deployment to roll. */
  readonly target: RolloutTarget;

  /**
   * The most pods deleted at once: a whole number >= 1, or a percentage of the workload's pods such as
   * '33%' (rounded down, at least 1).
   */
  readonly maxUnavailable: number | string;

  /**
   * Batch i deletes min(factor^i, maxUnavailable) pods (1, 2, 4, ... with 2), growing across zones and
   * restarting with each new revision. 0 turns the ramp off: every batch is maxUnavailable pods. Must be 0
   * or at least 1.
   *
   * @default 2
   */
  readonly exponentialFactor?: number;

  /**
   * Decide and report (log, Event, status) without deleting pods.
   *
   * @default false
   */
  readonly dryRun?: boolean;

  /**
   * When the rollout pauses.
   *
   * @default - never pauses
   */
  readonly pauseCondition?: ZoneAwareUpdatePauseCondition;

  /**
   * An HTTP check every pod must pass (besides its Ready condition) before the next batch is deleted.
   *
   * @default - the pods' Ready condition only
   */
  readonly readyCheck?: ZoneAwareUpdateReadyCheck;

  /**
   * Roll a new revision only once this other ZoneAwareUpdate, of the same namespace, has rolled its own workload out
   * (phase `Done` on that workload's current revision), and `startDelay` after that: rollouts in sequence, such as
   * a read path after a write path. A revision already under way goes on; the status says when a held one starts.
   *
   * @default - starts at once
   */
  readonly startAfter?: ZoneAwareUpdate;

  /**
   * How long after `startAfter` was done the rollout may start: whole seconds.
   *
   * @default Duration.seconds(0)
   */
  readonly startDelay?: Duration;

  /**
   * The ZoneAwareUpdate's name.
   *
   * @default - generated from the construct path
   */
  readonly name?: string;

  /**
   * The namespace: the workload's.
   *
   * @default - the cdk8s-plus workload's namespace, else the chart's
   */
  readonly namespace?: string;
}

const PAUSE_CONDITION_PROPS: PropSpec<ZoneAwareUpdatePauseCondition> = {
  label: Props.optional(Props.string()),
  annotation: Props.optional(Props.string()),
  prometheusQueryUrl: Props.optional(Props.string()),
};

const READY_CHECK_PROPS: PropSpec<ZoneAwareUpdateReadyCheck> = {
  path: Props.string(),
  port: Props.integer(1, 65535),
};

const PROPS: PropSpec<ZoneAwareUpdateProps> = {
  controller: CONTROLLER_PROP,
  target: Props.instanceOf(RolloutTarget),
  maxUnavailable: MAX_UNAVAILABLE_PROP,
  exponentialFactor: Props.optional(Props.finiteNumber()),
  dryRun: Props.optional(Props.boolean()),
  pauseCondition: Props.optional(Props.struct(PAUSE_CONDITION_PROPS, 'ZoneAwareUpdatePauseCondition')),
  readyCheck: Props.optional(Props.struct(READY_CHECK_PROPS, 'ZoneAwareUpdateReadyCheck')),
  startAfter: Props.optional(Props.custom('a ZoneAwareUpdate', (v) => (v instanceof ZoneAwareUpdate ? undefined : 'must be a ZoneAwareUpdate'))),
  startDelay: Props.optional(Props.instanceOf(Duration)),
  name: Props.optional(KubeProps.dnsSubdomain()),
  namespace: Props.optional(KubeProps.dnsLabel()),
};

/**
 * A ZoneAwareUpdate custom resource (group cdk8s-zones.dev): the runtime controller (`ZoneController` with
 * zone-aware updates enabled) rolls the target's pods zone by zone, zones in alphabetical order, highest
 * ordinal first, in batches of min(exponentialFactor^step, maxUnavailable) that never span two zones,
 * waiting for every updated pod to be Ready between batches.
 */
export class ZoneAwareUpdate extends Construct {
  /** The ZoneAwareUpdate's name. */
  public readonly name: string;
  /** The ZoneAwareUpdate's namespace (unset: the one it is applied to). */
  public readonly namespace?: string;

  constructor(scope: Construct, id: string, props: ZoneAwareUpdateProps) {
    super(scope, id);
    const where = `ZoneAwareUpdate '${this.node.path}'`;
    checkProps(where, props, PROPS, 'ZoneAwareUpdateProps');
    checkRolloutOptions(where, props);
    const target = props.target;
    const workloadNamespace = checkTarget(where, target, props.namespace);
    // the controller rolls a Deployment by scaling its ReplicaSets: Kubernetes must not roll it too
    target._deployment?.addJsonPatch(JsonPatch.add('/spec/paused', true));

    const namespace = props.namespace ?? workloadNamespace;
    const pause = props.pauseCondition;
    const spec: ZoneAwareUpdateSpec = {
      ...(target._field === 'statefulsets' ? { statefulsets: [...target.names] } : { [target._field]: target.name }),
      maxUnavailable: props.maxUnavailable,
      exponentialFactor: props.exponentialFactor ?? 2,
      ...(props.dryRun !== undefined ? { dryRun: props.dryRun } : {}),
      ...(pause ? {
        pauseCondition: {
          ...(pause.label !== undefined ? { label: pause.label } : {}),
          ...(pause.annotation !== undefined ? { annotation: pause.annotation } : {}),
          ...(pause.prometheusQueryUrl !== undefined ? { prometheusQueryUrl: pause.prometheusQueryUrl } : {}),
        },
      } : {}),
      ...(props.readyCheck ? { readyCheck: { path: props.readyCheck.path, port: props.readyCheck.port } } : {}),
      ...startAfterSpec(where, props, namespace ?? Chart.of(this).namespace),
    };
    const resource = new ApiObject(this, 'Resource', {
      apiVersion: ROLLOUT_API_VERSION,
      kind: ZONE_AWARE_UPDATE_KIND,
      metadata: {
        ...(props.name !== undefined ? { name: props.name } : {}),
        ...(namespace !== undefined ? { namespace } : {}),
        labels: standardLabels(target.name, this.node.id, 'zone-aware-update'),
      },
      spec,
    });
    this.name = ensureValidName(resource);
    this.namespace = resource.metadata.namespace;
    serveWith(where, props.controller, ZONE_AWARE_UPDATE_FEATURE, { namespace: resource.metadata.namespace });
  }
}

/** The spec's startAfter: another ZoneAwareUpdate of `namespace`, and the delay in whole seconds. */
function startAfterSpec(
  where: string,
  props: ZoneAwareUpdateProps,
  namespace: string | undefined,
): Pick<ZoneAwareUpdateSpec, 'startAfter'> {
  const { startAfter, startDelay } = props;
  if (startAfter === undefined) {
    if (startDelay !== undefined) throw invalidProp(where, 'startDelay', startDelay.toHumanString(), 'only applies with startAfter: set both or neither');
    return {};
  }
  if (startAfter.namespace !== namespace) {
    throw invalidProp(where, 'startAfter', `ZoneAwareUpdate ${startAfter.name} in namespace ${startAfter.namespace ?? '<unset>'}`,
      `must be in this ZoneAwareUpdate's namespace (${namespace ?? '<unset>'}): the controller looks it up there`);
  }
  const ms = startDelay?.toMilliseconds({ integral: false }) ?? 0;
  if (!Number.isInteger(ms / 1000) || ms < 0) {
    throw invalidProp(where, 'startDelay', startDelay!.toHumanString(), 'must be a whole number of seconds, 0 or more');
  }
  return { startAfter: { zoneAwareUpdate: startAfter.name, ...(ms > 0 ? { delaySeconds: ms / 1000 } : {}) } };
}

/** The rollout's options: maxUnavailable, the ramp's factor, the pause conditions, the ready check. */
function checkRolloutOptions(where: string, props: ZoneAwareUpdateProps): void {
  checkMaxUnavailable(where, 'maxUnavailable', props.maxUnavailable);
  const factor = props.exponentialFactor ?? 2;
  if (!Number.isFinite(factor) || factor < 0 || (factor > 0 && factor < 1)) {
    throw invalidProp(where, 'exponentialFactor', factor,
      'must be 0 (ramp off: batches of maxUnavailable) or at least 1 (a factor below 1 would never grow the batches)');
  }
  for (const prop of ['label', 'annotation'] as const) {
    const value = props.pauseCondition?.[prop];
    const problem = value === undefined ? undefined : labelKeyProblem(value.split('=')[0]);
    if (problem) {
      throw invalidProp(where, `pauseCondition.${prop}`, value, `must be 'key' or 'key=value' where the key ${problem}`);
    }
  }
  const url = props.pauseCondition?.prometheusQueryUrl;
  if (url !== undefined && !/^https?:\/\/[^/]+\/.*[?&]query=./.test(url)) {
    throw invalidProp(where, 'pauseCondition.prometheusQueryUrl', url,
      "must be an http(s) Prometheus instant-query URL with a query, e.g. 'http://prometheus:9090/api/v1/query?query=up==0'");
  }

  const readyCheck = props.readyCheck;
  if (readyCheck && !/^\/[\x21-\x7e]*$/.test(readyCheck.path)) {
    throw invalidProp(where, 'readyCheck.path', readyCheck.path, "must be an absolute URL path ('/ready'): '/' then printable characters, no spaces");
  }
}

/**
 * The target's workloads: valid names, one namespace (the ZoneAwareUpdate's, when it names one), the strategy the
 * controller needs; returns their namespace.
 */
function checkTarget(where: string, target: RolloutTarget, namespace: string | undefined): string | undefined {
  const workloadNamespace = (target._statefulSets[0] ?? target._deployment)?.metadata.namespace;
  if (namespace !== undefined && workloadNamespace !== undefined && namespace !== workloadNamespace) {
    throw invalidProp(where, 'namespace', namespace,
      `must be the workload's namespace ${JSON.stringify(workloadNamespace)}: a ZoneAwareUpdate rolls a workload of its own namespace`);
  }
  for (const name of target.names) {
    const targetProblem = dnsSubdomainProblem(name);
    if (targetProblem) throw invalidProp(where, 'target', name, `names no valid workload: ${targetProblem}`);
  }
  for (const sts of target._statefulSets) {
    if (sts.metadata.namespace !== workloadNamespace) {
      throw invalidProp(where, 'target', `StatefulSet ${sts.name} in namespace ${sts.metadata.namespace ?? '<the chart\'s>'}`,
        `must be in the namespace of the group's other StatefulSets (${workloadNamespace ?? '<the chart\'s>'}): a ZoneAwareUpdate rolls workloads of its own namespace`);
    }
    requireStrategy(where, sts, 'updateStrategy', 'OnDelete',
      'must use OnDelete, or Kubernetes rolls the pods itself, racing the controller: create the StatefulSet with ' +
      '`strategy: StatefulSetUpdateStrategy.onDelete()` (the construct refuses rather than change it for you)');
  }
  const deployment = target._deployment;
  if (deployment) {
    requireStrategy(where, deployment, 'strategy', 'Recreate',
      'must use Recreate: the controller rolls a paused Deployment by scaling its ReplicaSets, and a paused Deployment with ' +
      'a RollingUpdate strategy still rescales them itself; create it with `strategy: DeploymentStrategy.recreate()`');
  }
  return workloadNamespace;
}

/**
 * Refuses, when `api` synthesizes, a `spec.<field>.type` other than `wanted`: checked as rendered, whatever set
 * it (cdk8s-plus of any version, a raw object, a JSON patch).
 */
function requireStrategy(where: string, api: ApiObject, field: 'updateStrategy' | 'strategy', wanted: string, rule: string): void {
  transformRendered(api, (json) => {
    const strategy = json.spec?.[field]?.type ?? 'RollingUpdate';
    if (strategy !== wanted) throw invalidProp(where, 'target', `${api.kind} ${api.name} with ${field} ${strategy}`, rule);
    return json;
  });
}
