#!/usr/bin/env python3
"""How many clusters of a clustered kernel can be resident at once (the driver's
cuOccupancyMaxActiveClusters), beside the grid the kernel launches: a persistent kernel whose
grid has more clusters than that runs its last clusters only after others finish, so its
generator must launch at most this many.

    python3 cluster_occupancy.py MANIFEST.json [...]     (needs cuda-bindings)
"""
import json
import sys

from axe_runtime import backends


def main():
    be = backends.backend()
    if be.name != "cuda-bindings":
        sys.exit("cluster_occupancy.py needs the cuda-bindings backend")
    cuda = be.cuda
    for path in sys.argv[1:]:
        k = json.load(open(path))["kernels"][0]
        shared = k["dynamic_shared_bytes"]
        _, fn = be.load(k["ptx"], k["entry"], shared, 0)
        with be.on(0):
            config = cuda.CUlaunchConfig()
            config.gridDimX, config.gridDimY, config.gridDimZ = k["grid"]
            config.blockDimX, config.blockDimY, config.blockDimZ = k["block"]
            config.sharedMemBytes = shared
            attr = cuda.CUlaunchAttribute()
            attr.id = cuda.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = k.get("cluster", [1, 1, 1])
            config.attrs = [attr]
            config.numAttrs = 1
            n = be.check(cuda.cuOccupancyMaxActiveClusters(fn, config), "cuOccupancyMaxActiveClusters")
        size = 1
        for c in k.get("cluster", [1, 1, 1]):
            size *= c
        grid = k["grid"][0] * k["grid"][1] * k["grid"][2]
        print(f"{k['entry']}: cluster {k.get('cluster')}, grid {grid} CTAs = {grid // size} clusters, "
              f"at most {n} clusters resident", flush=True)


if __name__ == "__main__":
    main()
