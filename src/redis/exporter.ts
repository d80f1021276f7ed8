/**
 * The metrics exporter beside each redis-server (oliver006/redis_exporter, MIT): it asks its own node only
 * (127.0.0.1), with the password redis-server was started with, from the in-memory file the init container wrote
 * (never an argument nor an environment variable), and serves `/metrics` on its `metrics` port, which the
 * NetworkPolicy opens to the Prometheus that monitors the cluster alone. Restricted as redis-server is; no readiness
 * probe, so an exporter in trouble never takes a Redis node out of its Services.
 */
import { k8s } from 'cdk8s-plus-28';
import { REDIS_AUTH_DIR, REDIS_EXPORTER_PASSWORDS, REDIS_PORT } from '../contract/redis';
import { restrictedContainerSecurity } from '../kubernetes/pod-security';

/** The exporter image when `exporterImage` is not given (pinned: a release of the exporter, MIT). */
export const DEFAULT_EXPORTER_IMAGE = 'docker.io/oliver006/redis_exporter:v1.67.0';
/** The exporter's port (redis_exporter's own default), named `metrics`. */
export const EXPORTER_PORT = 9121;
/** The name of the exporter's port, as the monitors and the NetworkPolicy name it. */
export const EXPORTER_PORT_NAME = 'metrics';

/** The exporter, with the in-memory volume `authVolume` of the pod's auth files. */
export function exporterContainer(image: string, authVolume: string): k8s.Container {
  return {
    name: 'exporter',
    image,
    // each value its own argument, as redis-server's: a path stands alone
    args: [
      '--redis.addr', `redis://127.0.0.1:${REDIS_PORT}`, '--redis.password-file', REDIS_EXPORTER_PASSWORDS,
      '--web.listen-address', `:${EXPORTER_PORT}`,
    ],
    ports: [{ name: EXPORTER_PORT_NAME, containerPort: EXPORTER_PORT }],
    livenessProbe: {
      httpGet: { path: '/health', port: k8s.IntOrString.fromString(EXPORTER_PORT_NAME) },
      periodSeconds: 20,
      timeoutSeconds: 5,
      failureThreshold: 3,
    },
    resources: {
      requests: { cpu: k8s.Quantity.fromString('10m'), memory: k8s.Quantity.fromString('32Mi') },
      limits: { memory: k8s.Quantity.fromString('64Mi') },
    },
    securityContext: restrictedContainerSecurity(),
    volumeMounts: [{ name: authVolume, mountPath: REDIS_AUTH_DIR, readOnly: true }],
  };
}
