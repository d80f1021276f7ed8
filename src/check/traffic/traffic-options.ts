/**
 * What the traffic report is asked for besides the manifests and the nodes (what `cdk8s-zones traffic --clients`,
 * `--gb-per-month` and `--price-per-gb` say): where the clients run, and the costs.
 */
import { ObjectRef } from './traffic-model';

/** A workload of the manifests: its kind (any case), namespace and name. */
export interface WorkloadRef extends ObjectRef {
  /** `Deployment`, `StatefulSet`, ... */
  readonly kind: string;
}

/** Where a Service's clients run: as a workload of the manifests is placed. */
export interface TrafficClients {
  /**
   * The Service they are the clients of.
   *
   * @default - every Service not named in another TrafficClients
   */
  readonly service?: ObjectRef;
  /** The workload whose pods are the clients. */
  readonly workload: WorkloadRef;
}

/** The GB a month a Service carries (requests and responses). */
export interface ServiceVolume {
  readonly service: ObjectRef;
  readonly gbPerMonth: number;
}

/** What the report needs to put a monthly cost on the traffic that crosses zones. */
export interface TrafficCosts {
  /** What one GB costs between zones in each direction (0.01 on AWS and Google Cloud). */
  readonly pricePerGb: number;
  /**
   * The GB a month of every Service not in `perService`.
   *
   * @default - only the Services of `perService` get a cost
   */
  readonly gbPerMonth?: number;
  /**
   * The GB a month of named Services.
   *
   * @default - none: `gbPerMonth` for every Service
   */
  readonly perService?: ServiceVolume[];
}

/** The traffic report's options. */
export interface TrafficOptions {
  /**
   * Where the clients run, for every Service or for one.
   *
   * @default - clients spread over the zones as the nodes are (each node the same share)
   */
  readonly clients?: TrafficClients[];
  /**
   * The price and volumes of the traffic, for a monthly cost.
   *
   * @default - no costs
   */
  readonly costs?: TrafficCosts;
}
