/**
 * What a Service's cross-zone traffic costs a month (pure): the clouds bill a byte that crosses zones as it leaves
 * one zone and again as it enters the other, so the cost is the GB a month the Service carries, times the share
 * that crosses, times the price per GB, twice.
 */
import { ObjectRef, TrafficFigure } from './traffic-model';
import { TrafficCosts } from './traffic-options';

/** The monthly cost of `service`'s crossing `share` (undefined when no volume is known for it). */
export function monthlyCost(
  service: ObjectRef, share: { readonly worst: number; readonly now?: number }, costs: TrafficCosts | undefined,
): TrafficFigure | undefined {
  if (costs === undefined) return undefined;
  const named = (costs.perService ?? []).find((p) => (p.service.namespace ?? '') === (service.namespace ?? '')
    && p.service.name === service.name);
  const gb = named?.gbPerMonth ?? costs.gbPerMonth;
  if (gb === undefined) return undefined;
  const cost = (s: number) => gb * s * costs.pricePerGb * 2;
  return { worst: cost(share.worst), ...(share.now !== undefined ? { now: cost(share.now) } : {}) };
}
