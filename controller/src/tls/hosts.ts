/** The DNS names a Service is reached by from the API server (a serving certificate for it covers them). */
export function serviceHosts(service: string, namespace: string): string[] {
  return [`${service}.${namespace}.svc`, `${service}.${namespace}.svc.cluster.local`, `${service}.${namespace}`, service];
}
