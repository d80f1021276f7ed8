/**
 * A Service as the check and the traffic report read it (pure): its selector, ports, and what decides its routing.
 * A malformed field reads as absent; the API server would refuse the object anyway.
 */
import { CheckService, CheckServicePort } from './check-input';
import { stringMap } from './operators';
import { arrayOf, KindedResource } from '../kubernetes/objects';

/** The Service `o` (kind Service) named `name`. */
export function readService(o: KindedResource, name: string, namespace: string | undefined): CheckService {
  const spec = (typeof o.spec === 'object' && o.spec !== null ? o.spec : {}) as { readonly [key: string]: unknown };
  const selector = typeof spec.selector === 'object' && spec.selector !== null ? stringMap(spec.selector) : undefined;
  return {
    ...(namespace !== undefined ? { namespace } : {}),
    name,
    type: typeof spec.type === 'string' ? spec.type : 'ClusterIP',
    ...(selector !== undefined && Object.keys(selector).length > 0 ? { selector } : {}),
    headless: spec.clusterIP === 'None',
    ...(typeof spec.trafficDistribution === 'string' ? { trafficDistribution: spec.trafficDistribution } : {}),
    ...(typeof spec.internalTrafficPolicy === 'string' ? { internalTrafficPolicy: spec.internalTrafficPolicy } : {}),
    annotations: stringMap(o.metadata?.annotations),
    ports: arrayOf(spec.ports as readonly unknown[] | undefined).map(servicePort),
  };
}

function servicePort(value: unknown): CheckServicePort {
  const p = (typeof value === 'object' && value !== null ? value : {}) as { readonly [key: string]: unknown };
  const target = p.targetPort;
  return {
    ...(typeof p.name === 'string' ? { name: p.name } : {}),
    ...(typeof p.port === 'number' ? { port: p.port } : {}),
    ...(typeof target === 'number' || typeof target === 'string' ? { targetPort: target } : {}),
  };
}
