import { ApiObject } from 'cdk8s';
import { Construct, IConstruct } from 'constructs';
import { checkMaxUnavailable, MAX_UNAVAILABLE_PROP } from './max-unavailable';
import { ROLLOUT_API_VERSION, ZONE_DISRUPTION_BUDGET_KIND } from '../contract/rollout';
import { ZoneDisruptionBudgetSpec } from '../contract/rollout-resources';
import { KubeProps } from '../kubernetes/kubernetes-props';
import { Selector, selectorIsEmpty } from '../kubernetes/label-selector';
import { ensureValidName } from '../kubernetes/object-names';
import { standardLabels } from '../kubernetes/standard-labels';
import { lazySelector, workloadApiObject } from '../kubernetes/workload';
import { invalidProp } from '../shared/errors';
import { checkProps, Props, PropSpec } from '../shared/props';
import { IZoneController, CONTROLLER_PROP } from '../zone-controller/controller-reference';
import { ZONE_DISRUPTION_BUDGET_FEATURE } from '../zone-controller/features';
import { serveWith } from '../zone-controller/requirements';

/** Props of `ZoneDisruptionBudget`. */
export interface ZoneDisruptionBudgetProps {
  /**
   * The runtime controller that enforces the budget (its eviction webhook): a `ZoneController` of this app with
   * `zoneDisruptionBudget`, or `ZoneController.fromInstalled(...)` for one another app installs (serving this
   * namespace).
   */
  readonly controller: IZoneController;

  /**
   * The pods the budget guards, by label (every entry must match). Set this or `workload`.
   *
   * @default - the workload's selector
   */
  readonly selector?: { [key: string]: string };

  /**
   * The workload whose pods the budget guards, by its pod selector as synthesized: a cdk8s-plus Deployment,
   * StatefulSet or Job (any version from 28 to 33) or a raw `k8s.KubeDeployment`, `KubeStatefulSet` or
   * `KubeJob`. Set this or `selector`.
   *
   * @default - `selector`
   */
  readonly workload?: IConstruct;

  /**
   * The most unavailable pods per zone after an eviction: a whole number >= 1, or a percentage of all
   * the selected pods (rounded up, at least 1). Evictions pass in one zone at a time: while any other
   * zone has an unavailable or missing pod, every eviction elsewhere is denied.
   */
  readonly maxUnavailable: number | string;

  /**
   * Allow every eviction, but log, record an Event and count the ones that would have been denied.
   *
   * @default false
   */
  readonly dryRun?: boolean;

  /**
   * The ZoneDisruptionBudget's name.
   *
   * @default - generated from the construct path
   */
  readonly name?: string;

  /**
   * The namespace (the pods').
   *
   * @default - the workload's namespace, else the chart's
   */
  readonly namespace?: string;
}

const PROPS: PropSpec<ZoneDisruptionBudgetProps> = {
  controller: CONTROLLER_PROP,
  selector: Props.optional(KubeProps.labels()),
  workload: Props.optional(Props.any()),
  maxUnavailable: MAX_UNAVAILABLE_PROP,
  dryRun: Props.optional(Props.boolean()),
  name: Props.optional(KubeProps.dnsSubdomain()),
  namespace: Props.optional(KubeProps.dnsLabel()),
};

/**
 * A ZoneDisruptionBudget custom resource (group cdk8s-zones.dev): the runtime controller's eviction webhook
 * (`ZoneController` with zone disruption budgets enabled) lets evictions of the selected pods through in
 * one zone at a time, up to maxUnavailable per zone. Pods that should exist but do not (deleted, not yet
 * recreated) count as unavailable, unlike aws/zone-aware-controllers (its bug #28).
 */
export class ZoneDisruptionBudget extends Construct {
  /** The ZoneDisruptionBudget's name. */
  public readonly name: string;

  constructor(scope: Construct, id: string, props: ZoneDisruptionBudgetProps) {
    super(scope, id);
    const where = `ZoneDisruptionBudget '${this.node.path}'`;
    checkProps(where, props, PROPS, 'ZoneDisruptionBudgetProps');
    checkMaxUnavailable(where, 'maxUnavailable', props.maxUnavailable);
    if ((props.selector === undefined) === (props.workload === undefined)) {
      throw invalidProp(where, 'selector', props.selector, 'set exactly one of selector and workload');
    }
    const workload = props.workload && workloadApiObject(where, 'workload', props.workload, ['Deployment', 'StatefulSet', 'Job']);
    const notEmpty = (selector: Selector, shown: unknown = selector) => {
      if (selectorIsEmpty(selector)) {
        throw invalidProp(where, 'selector', shown, 'must not be empty: an empty selector guards every pod of the namespace');
      }
    };
    if (props.selector) notEmpty({ matchLabels: props.selector }, props.selector);
    const workloadNamespace = workload?.metadata.namespace;
    if (props.namespace !== undefined && workloadNamespace !== undefined && props.namespace !== workloadNamespace) {
      throw invalidProp(where, 'namespace', props.namespace,
        `must be the workload's namespace ${JSON.stringify(workloadNamespace)}: a budget guards pods of its own namespace`);
    }
    const namespace = props.namespace ?? workloadNamespace;
    const spec: ZoneDisruptionBudgetSpec = {
      // the workload's selector as it is synthesized, whatever changed it after this construct
      selector: workload ? lazySelector(workload, notEmpty) : { matchLabels: { ...props.selector } },
      maxUnavailable: props.maxUnavailable,
      ...(props.dryRun !== undefined ? { dryRun: props.dryRun } : {}),
    };
    const resource = new ApiObject(this, 'Resource', {
      apiVersion: ROLLOUT_API_VERSION,
      kind: ZONE_DISRUPTION_BUDGET_KIND,
      metadata: {
        ...(props.name !== undefined ? { name: props.name } : {}),
        ...(namespace !== undefined ? { namespace } : {}),
        labels: standardLabels(workload?.name ?? this.node.id, this.node.id, 'zone-disruption-budget'),
      },
      spec,
    });
    this.name = ensureValidName(resource);
    serveWith(where, props.controller, ZONE_DISRUPTION_BUDGET_FEATURE, { namespace: resource.metadata.namespace });
  }
}
