import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import { zoneAwareUpdateCrd, zoneDisruptionBudgetCrd } from '../contract/rollout-crds';
import { clusterScoped } from '../shared/object-names';
import { checkProps, Props } from '../shared/props';

/** Props of `ZoneRolloutCrds`. */
export interface ZoneRolloutCrdsProps {
  /**
   * Emit the ZoneAwareUpdate CRD.
   *
   * @default true
   */
  readonly zoneAwareUpdate?: boolean;

  /**
   * Emit the ZoneDisruptionBudget CRD.
   *
   * @default true
   */
  readonly zoneDisruptionBudget?: boolean;
}

/**
 * Just the CustomResourceDefinitions of ZoneAwareUpdate and ZoneDisruptionBudget (group
 * `cdk8s-zones.dev`, version v1alpha1), for clusters where the CRDs are installed apart from the
 * controller. `ZoneController` emits them itself for the features it enables.
 */
export class ZoneRolloutCrds extends Construct {
  constructor(scope: Construct, id: string, props: ZoneRolloutCrdsProps = {}) {
    super(scope, id);
    checkProps(`ZoneRolloutCrds '${this.node.path}'`, props, {
      zoneAwareUpdate: Props.optional(Props.boolean()), zoneDisruptionBudget: Props.optional(Props.boolean()),
    }, 'ZoneRolloutCrdsProps');
    if (props.zoneAwareUpdate ?? true) clusterScoped(new ApiObject(this, 'zoneawareupdates', zoneAwareUpdateCrd()));
    if (props.zoneDisruptionBudget ?? true) clusterScoped(new ApiObject(this, 'zonedisruptionbudgets', zoneDisruptionBudgetCrd()));
  }
}
