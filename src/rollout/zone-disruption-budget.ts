import { ApiObject } from 'cdk8s';
import * as kplus from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { checkMaxUnavailable, MAX_UNAVAILABLE_PROP } from './max-unavailable';
import { ROLLOUT_API_VERSION, ZONE_DISRUPTION_BUDGET_KIND } from '../contract/rollout';
import { requireControllerFeature, ZONE_DISRUPTION_BUDGET_FEATURE } from '../controller/requirements';
import { invalidProp } from '../shared/errors';
import { KubeProps } from '../shared/kubernetes-props';
import { ensureValidName } from '../shared/object-names';
import { checkProps, Props, PropSpec } from '../shared/props';
import { standardLabels } from '../shared/standard-labels';

/** Props of `ZoneDisruptionBudget`. */
export interface ZoneDisruptionBudgetProps {
  /**
   * The pods the budget guards, by label (every entry must match). Set this or `workload`.
   *
   * @default - the workload's selector
   */
  readonly selector?: { [key: string]: string };

  /**
   * A cdk8s-plus workload (Deployment, StatefulSet, ...) whose pods the budget guards. Set this or
   * `selector`.
   *
   * @default - `selector`
   */
  readonly workload?: kplus.Workload;

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

  /**
   * The controller that enforces the budget (a `ZoneController` with `zoneDisruptionBudget`) is installed by
   * another app. Synth then warns instead of failing when this app has no such controller.
   *
   * @default false: the app must contain a ZoneController with zoneDisruptionBudget
   */
  readonly controllerInstalledElsewhere?: boolean;
}

const PROPS: PropSpec<ZoneDisruptionBudgetProps> = {
  selector: Props.optional(KubeProps.labels()),
  workload: Props.optional(Props.instanceOf(kplus.Workload, 'cdk8s-plus Workload')),
  maxUnavailable: MAX_UNAVAILABLE_PROP,
  dryRun: Props.optional(Props.boolean()),
  name: Props.optional(KubeProps.dnsSubdomain()),
  namespace: Props.optional(KubeProps.dnsLabel()),
  controllerInstalledElsewhere: Props.optional(Props.boolean()),
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
    const matchLabels = props.selector ?? props.workload!.matchLabels;
    if (Object.keys(matchLabels).length === 0) {
      throw invalidProp(where, 'selector', matchLabels, 'must not be empty: an empty selector guards every pod of the namespace');
    }
    const workloadNamespace = props.workload?.metadata.namespace;
    if (props.namespace !== undefined && workloadNamespace !== undefined && props.namespace !== workloadNamespace) {
      throw invalidProp(where, 'namespace', props.namespace,
        `must be the workload's namespace ${JSON.stringify(workloadNamespace)}: a budget guards pods of its own namespace`);
    }
    const namespace = props.namespace ?? workloadNamespace;
    const resource = new ApiObject(this, 'Resource', {
      apiVersion: ROLLOUT_API_VERSION,
      kind: ZONE_DISRUPTION_BUDGET_KIND,
      metadata: {
        ...(props.name !== undefined ? { name: props.name } : {}),
        ...(namespace !== undefined ? { namespace } : {}),
        labels: standardLabels(props.workload?.name ?? this.node.id, this.node.id, 'zone-disruption-budget'),
      },
      spec: {
        selector: { matchLabels: { ...matchLabels } },
        maxUnavailable: props.maxUnavailable,
        ...(props.dryRun !== undefined ? { dryRun: props.dryRun } : {}),
      },
    });
    this.name = ensureValidName(resource);
    const installedElsewhere = props.controllerInstalledElsewhere ?? false;
    requireControllerFeature(this, where, ZONE_DISRUPTION_BUDGET_FEATURE, installedElsewhere, { namespace: resource.metadata.namespace });
  }
}
