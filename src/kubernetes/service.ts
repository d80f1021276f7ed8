import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { JsonObject } from './objects';

/**
 * A Service that may set `spec.trafficDistribution` (Kubernetes 1.31+). cdk8s-plus-28's KubeService models
 * Kubernetes 1.28 and drops fields it does not know when it renders, JSON patches included, so the field is
 * added to what it renders.
 */
export class KubeServiceWithTraffic extends k8s.KubeService {
  private readonly trafficDistribution?: string;

  constructor(scope: Construct, id: string, props: k8s.KubeServiceProps, trafficDistribution: string | undefined) {
    super(scope, id, props);
    this.trafficDistribution = trafficDistribution;
  }

  public toJson(): JsonObject {
    const json: { readonly spec?: JsonObject } = super.toJson();
    if (this.trafficDistribution === undefined) return json;
    return { ...json, spec: { ...json.spec, trafficDistribution: this.trafficDistribution } };
  }
}
