/**
 * Kubernetes Events on the objects the controller acts on (`kubectl describe pod` shows them): the same
 * reason and message on the same object is one Event whose count grows, as kubelet and client-go do it.
 */
import { Logger } from '../log';
import { KubeApi, KubeObject, resourcePath } from './api';
import { CLUSTER_SCOPED_EVENTS_NAMESPACE } from '../../../src/contract/rbac';
import { EVENTS } from '../resources';

export type EventType = 'Normal' | 'Warning';

/** The object an Event is about: kind and apiVersion are required (items of a list carry neither). */
export type EventSubject = KubeObject & { readonly apiVersion: string; readonly kind: string };

export interface EventRecorder {
  /** Records an Event; never throws (a failed Event is logged, the reconcile goes on). */
  record(obj: EventSubject, type: EventType, reason: string, message: string): Promise<void>;
}

/** How many distinct (object, reason, message) the recorder remembers for counting. */
const REMEMBERED = 4096;

/** The reference an Event makes to the object it is about. */
function involvedObject(obj: EventSubject) {
  return {
    apiVersion: obj.apiVersion,
    kind: obj.kind,
    name: obj.metadata.name,
    namespace: obj.metadata.namespace,
    uid: obj.metadata.uid,
    resourceVersion: obj.metadata.resourceVersion,
  };
}

export function kubeEventRecorder(
  api: KubeApi,
  component: string,
  instance: string,
  log: Logger,
  now = Date.now,
): EventRecorder {
  const seen = new Map<string, { name: string; namespace: string; count: number }>();
  let serial = 0;
  return {
    async record(obj, type, reason, message) {
      // a cluster-scoped object's Events: the API server takes them in `default` only
      const namespace = obj.metadata.namespace ?? CLUSTER_SCOPED_EVENTS_NAMESPACE;
      const key = `${obj.metadata.uid ?? `${namespace}/${obj.metadata.name}`}|${reason}|${message}`;
      const time = new Date(now()).toISOString().replace(/\.\d+Z$/, 'Z');
      const known = seen.get(key);
      try {
        if (known) {
          known.count++;
          const path = resourcePath(EVENTS, known.namespace, known.name);
          await api.patch(path, { count: known.count, lastTimestamp: time });
          return;
        }
        const name = `${obj.metadata.name}.${now().toString(16)}${(serial++).toString(16)}`;
        await api.create(resourcePath(EVENTS, namespace), {
          apiVersion: 'v1',
          kind: 'Event',
          metadata: { name, namespace },
          involvedObject: involvedObject(obj),
          type,
          reason,
          message,
          source: { component, host: instance },
          reportingComponent: component,
          reportingInstance: instance,
          firstTimestamp: time,
          lastTimestamp: time,
          eventTime: null,
          count: 1,
        });
        if (seen.size >= REMEMBERED) seen.delete(seen.keys().next().value!);
        seen.set(key, { name, namespace, count: 1 });
      } catch (err) {
        if (known) seen.delete(key); // the Event may be gone (TTL): create a new one next time
        log.warn('could not record an event', { reason, object: `${namespace}/${obj.metadata.name}`, error: err });
      }
    },
  };
}

