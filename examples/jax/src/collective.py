"""Two (or more) JAX processes: a cross-process all-reduce, then data-parallel training.

tony's jax runtime sets JAX_COORDINATOR_ADDRESS, which jax.distributed.initialize() reads by
itself, and JAX_NUM_PROCESSES / JAX_PROCESS_ID, which jax only auto-detects on clusters it knows
(Slurm, Open MPI, Kubernetes, TPU), so the script passes those two on, as under Kubeflow Trainer.
Process 0 hosts jax's coordination service on the port tony reserved for it.

1. All-reduce: process p contributes the row (p + 1) * [1, 2, 3, 4]; a psum over a mesh of every
   process's CPU device must give sum(p + 1) * [1, 2, 3, 4] on every process.
2. Training: linear regression y = X w* + noise, each process holding its own shard of the data;
   the gradient is averaged across processes (pmean) every step, so every process holds the same
   weights, and they converge to w*.
"""
import argparse
import os
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import Mesh
from jax.sharding import PartitionSpec as P

TRUE_W = np.array([2.0, -3.0, 0.5, 1.0], dtype=np.float32)


def all_reduce(mesh, pid):
    row = (pid + 1) * np.arange(1, 5, dtype=np.float32)[None, :]
    rows = multihost_utils.host_local_array_to_global_array(row, mesh, P("p"))
    psum = jax.jit(jax.shard_map(lambda x: jax.lax.psum(x, "p"), mesh=mesh,
                                 in_specs=P("p"), out_specs=P()))
    return np.asarray(multihost_utils.global_array_to_host_local_array(psum(rows), mesh, P()))[0]


def train(mesh, pid, steps, lr):
    rng = np.random.default_rng(100 + pid)  # each process its own data
    x = rng.normal(size=(256, 4)).astype(np.float32)
    y = x @ TRUE_W + 0.1 * rng.normal(size=256).astype(np.float32)
    xs = multihost_utils.host_local_array_to_global_array(x, mesh, P("p"))
    ys = multihost_utils.host_local_array_to_global_array(y, mesh, P("p"))

    def local_loss(w, x, y):
        return jnp.mean((x @ w - y) ** 2)

    def step(w, x, y):
        loss, grad = jax.value_and_grad(local_loss)(w, x, y)
        return w - lr * jax.lax.pmean(grad, "p"), jax.lax.pmean(loss, "p")

    step = jax.jit(jax.shard_map(step, mesh=mesh, in_specs=(P(), P("p"), P("p")),
                                 out_specs=(P(), P())))
    w = jnp.zeros(4, dtype=jnp.float32)
    losses = []
    for _ in range(steps):
        w, loss = step(w, xs, ys)
        losses.append(float(loss))
    return np.asarray(w), losses


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()

    start = time.time()
    jax.distributed.initialize(num_processes=int(os.environ["JAX_NUM_PROCESSES"]),
                               process_id=int(os.environ["JAX_PROCESS_ID"]))
    pid, count = jax.process_index(), jax.process_count()
    mesh = Mesh(np.array(jax.devices()), ("p",))
    print(f"process {pid}/{count}: coordinator {os.environ['JAX_COORDINATOR_ADDRESS']} "
          f"devices {jax.device_count()} local {jax.local_device_count()} "
          f"init_seconds {time.time() - start:.1f}", flush=True)

    total = all_reduce(mesh, pid)
    print(f"process {pid}/{count}: psum {total.tolist()}", flush=True)

    w, losses = train(mesh, pid, args.steps, args.lr)
    # Every process must hold the same weights: gather them all and compare.
    every_w = multihost_utils.process_allgather(w)
    in_sync = bool(np.allclose(every_w, every_w[0], atol=1e-6))
    print(f"process {pid}/{count}: loss first {losses[0]:.4f} last {losses[-1]:.4f} "
          f"w {np.round(w, 3).tolist()} max_error {float(np.max(np.abs(w - TRUE_W))):.4f} "
          f"in_sync {in_sync}", flush=True)
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
