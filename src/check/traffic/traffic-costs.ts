/**
 * What a Service's cross-zone traffic costs a month (pure): the clouds bill a byte that crosses zones as it leaves
 * one zone and again as it enters the other, so the cost is the GB a month the Service carries, times the share
 * that crosses, times the price per GB, twice.
 */
import { ObjectRef, TrafficFigure } from './traffic-model';

/** The prices and volumes `--price-per-gb` and `--gb-per-month` give. */
export interface TrafficCosts {
  /** What one GB costs in each direction (e.g. 0.01 on AWS and Google Cloud between zones). */
  readonly pricePerGb: number;
  /** The GB a month of every Service not named in `perService`. @default - only those named */
  readonly gbPerMonth?: number;
  /** The GB a month of named Services. */
  readonly perService: readonly { readonly service: ObjectRef; readonly gbPerMonth: number }[];
}

/** The monthly cost of `service`'s crossing `share` (undefined when no volume is known for it). */
export function monthlyCost(
  service: ObjectRef, share: { readonly worst: number; readonly now?: number }, costs: TrafficCosts | undefined,
): TrafficFigure | undefined {
  if (costs === undefined) return undefined;
  const named = costs.perService.find((p) => (p.service.namespace ?? '') === (service.namespace ?? '')
    && p.service.name === service.name);
  const gb = named?.gbPerMonth ?? costs.gbPerMonth;
  if (gb === undefined) return undefined;
  const cost = (s: number) => gb * s * costs.pricePerGb * 2;
  return { worst: cost(share.worst), ...(share.now !== undefined ? { now: cost(share.now) } : {}) };
}
