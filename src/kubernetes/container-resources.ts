/**
 * Container resources: every container the library emits requests CPU and memory and has a memory limit,
 * so a container that leaks or bursts is OOM-killed on its own instead of starving its node's other pods.
 */
import { k8s } from 'cdk8s-plus-28';

/** Requests of `cpu` and `memory`, and a memory limit (the request unless given). */
export function containerResources(
  cpu: string,
  memory: string,
  memoryLimit: string = memory,
): k8s.ResourceRequirements {
  return {
    requests: { cpu: k8s.Quantity.fromString(cpu), memory: k8s.Quantity.fromString(memory) },
    limits: { memory: k8s.Quantity.fromString(memoryLimit) },
  };
}
