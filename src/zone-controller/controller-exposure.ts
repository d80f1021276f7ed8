/**
 * How the controller's pods are reached: a Service (metrics; webhooks when a feature serves one), the NetworkPolicy
 * that admits exactly that (the API server on the webhook port, `networkPolicy.clients` and the scrapers a Prometheus
 * adds on the metrics port), a PodDisruptionBudget with several replicas, and what a Prometheus that monitors the
 * controller scrapes (its /metrics) and alerts on (src/monitoring/controller-rules.ts).
 */
import { k8s } from 'cdk8s-plus-28';
import { Construct } from 'constructs';
import { METRICS_PORT } from './controller-pod';
import { CLIENTS_OUTSIDE, TRAFFIC_CLIENTS_ANNOTATION } from '../contract/traffic';
import { clientPeers, emitNetworkPolicy, NetworkPolicyOptions } from '../kubernetes/network-policy';
import { controllerAlertGroup, controllerDashboardSection } from '../monitoring/controller-rules';
import { MonitoredComponent, ScraperPeers } from '../monitoring/monitored';
import { escapeRegex } from '../monitoring/promql';

/** The controller as its exposure needs it. */
export interface ExposedController {
  readonly where: string;
  readonly name: string;
  readonly namespace: string;
  readonly labels: { readonly [key: string]: string };
  readonly podSelector: { readonly [key: string]: string };
  readonly networkPolicy: NetworkPolicyOptions | undefined;
  readonly replicas: number;
  readonly servesWebhooks: boolean;
}

/** Emits the controller's Service, NetworkPolicy and PodDisruptionBudget; returns what a Prometheus monitors. */
export function exposeController(scope: Construct, c: ExposedController): () => MonitoredComponent {
  const meta = { name: c.name, namespace: c.namespace, labels: { ...c.labels } };
  const selector = { ...c.podSelector };
  new k8s.KubeService(scope, 'service', {
    // its clients are the API server (webhooks) and scrapers that reach each pod: no zone-local routing applies
    metadata: { ...meta, annotations: { [TRAFFIC_CLIENTS_ANNOTATION]: CLIENTS_OUTSIDE } },
    spec: {
      selector,
      ports: [
        { name: 'metrics', port: METRICS_PORT, targetPort: k8s.IntOrString.fromString('metrics') },
        ...(c.servesWebhooks ? [{ name: 'webhook', port: 443, targetPort: k8s.IntOrString.fromString('webhook') }] : []),
      ],
    },
  });
  const scrapers = new ScraperPeers();
  emitNetworkPolicy(scope, 'network-policy', c.where, c.networkPolicy, {
    ...meta,
    podSelector: selector,
    ingress: [
      { ports: ['metrics'], from: clientPeers(c.networkPolicy) },
      { ports: ['metrics'], from: scrapers.list },
      ...(c.servesWebhooks ? [{ ports: ['webhook'], from: 'anywhere' as const }] : []),
    ],
  });
  if (c.replicas > 1) {
    new k8s.KubePodDisruptionBudget(scope, 'pdb', {
      metadata: meta,
      spec: { maxUnavailable: k8s.IntOrString.fromNumber(1), selector: { matchLabels: selector } },
    });
  }
  return () => ({
    what: c.where,
    kind: 'zone-controller',
    name: c.name,
    namespace: c.namespace,
    podLabels: selector,
    // its series name the namespace, pod and zone of what they describe, not the controller's own
    endpoints: [{ port: 'metrics', path: '/metrics', honorLabels: true }],
    alertGroups: [controllerAlertGroup()],
    dashboard: controllerDashboardSection(),
    // the Deployment's pods: <name>-<template hash>-<suffix>
    podPattern: `${escapeRegex(c.name)}-[a-z0-9]+-[a-z0-9]+`,
    admitScrapers: scrapers.admit,
  });
}
