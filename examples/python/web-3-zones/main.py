"""The web-3-zones example (examples/web-3-zones/main.ts) written with the Python package.

A stateless web Deployment spread evenly over three zones, a Service, a PodDisruptionBudget and a
NetworkPolicy that admits HTTP only. It synthesizes the same manifests as the TypeScript example.

    python -m venv .venv && .venv/bin/pip install -r requirements.txt ../../../dist/python/cdk8s_zones-*.whl
    CDK8S_OUTDIR=out .venv/bin/python main.py
"""
from typing import Optional, Sequence

import cdk8s_plus_28 as kplus
from cdk8s import App, Chart, Size
from cdk8s_plus_28 import k8s
from cdk8s_zones import Zonal, ZoneTopology
from constructs import Construct

STANDARD_ZONES = ["zone-a", "zone-b", "zone-c"]


class WebChart(Chart):
    def __init__(self, scope: Construct, id: str, *, zones: Sequence[str], disable_resource_name_hashes: Optional[bool] = None):
        super().__init__(scope, id, disable_resource_name_hashes=disable_resource_name_hashes)

        topology = ZoneTopology(zones=list(zones))

        web = kplus.Deployment(self, "web",
            replicas=6,
            containers=[kplus.ContainerProps(
                name="web",
                image="registry.k8s.io/e2e-test-images/agnhost:2.53",
                args=["netexec", "--http-port=8080"],
                port_number=8080,
                readiness=kplus.Probe.from_http_get("/healthz", port=8080),
                liveness=kplus.Probe.from_tcp_socket(port=8080),
                resources=kplus.ContainerResources(
                    cpu=kplus.CpuResources(request=kplus.Cpu.millis(50), limit=kplus.Cpu.millis(200)),
                    memory=kplus.MemoryResources(request=Size.mebibytes(32), limit=Size.mebibytes(64)),
                ),
                # Pod Security "restricted": non-root, no privilege escalation, no capabilities, RuntimeDefault seccomp.
                security_context=kplus.ContainerSecurityContextProps(
                    user=65532,
                    group=65532,
                    capabilities=kplus.ContainerSecutiryContextCapabilities(drop=[kplus.Capability.ALL]),
                    seccomp_profile=kplus.SeccompProfile(type=kplus.SeccompProfileType.RUNTIME_DEFAULT),
                ),
            )],
        )
        Zonal.spread(web, topology=topology)
        web.expose_via_service(name="web", ports=[kplus.ServicePort(port=80, target_port=8080)])
        k8s.KubePodDisruptionBudget(self, "web-pdb",
            metadata=k8s.ObjectMeta(name="web"),
            spec=k8s.PodDisruptionBudgetSpec(
                max_unavailable=k8s.IntOrString.from_number(1),
                selector=k8s.LabelSelector(match_labels=web.match_labels),
            ),
        )
        # HTTP from anywhere (an ingress controller in its own namespace, other apps); nothing else.
        k8s.KubeNetworkPolicy(self, "web-network-policy",
            metadata=k8s.ObjectMeta(name="web"),
            spec=k8s.NetworkPolicySpec(
                pod_selector=k8s.LabelSelector(match_labels=web.match_labels),
                policy_types=["Ingress"],
                ingress=[k8s.NetworkPolicyIngressRule(
                    ports=[k8s.NetworkPolicyPort(protocol="TCP", port=k8s.IntOrString.from_number(8080))],
                    from_=[k8s.NetworkPolicyPeer(namespace_selector=k8s.LabelSelector())],
                )],
            ),
        )


def build(app: App, zones: Sequence[str] = STANDARD_ZONES) -> None:
    """Adds this example's charts to `app`, as the TypeScript example's build() does."""
    WebChart(app, "web", zones=zones, disable_resource_name_hashes=True)


if __name__ == "__main__":
    app = App()  # writes into $CDK8S_OUTDIR (default: dist)
    build(app)
    app.synth()
