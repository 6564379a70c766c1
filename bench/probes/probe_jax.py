"""First-step probe for examples/jax: jax.distributed.initialize as the example calls it, the
example's mesh, its psum check and its data-parallel linear-regression step (jit + shard_map + pmean), one step, then
a timestamp. Same code under tony and under hand-started processes."""
import stamp  # noqa: F401  (first: records the start time)
import os
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import multihost_utils
from jax.sharding import Mesh, PartitionSpec as P

TRUE_W = np.array([2.0, -3.0, 0.5, 1.0], dtype=np.float32)


def main():
    imported = time.time()
    jax.distributed.initialize(num_processes=int(os.environ["JAX_NUM_PROCESSES"]),
                               process_id=int(os.environ["JAX_PROCESS_ID"]))
    pid = jax.process_index()
    mesh = Mesh(np.array(jax.devices()), ("p",))
    initialized = time.time()
    # The example's all-reduce check first, as it runs it before training.
    row = (pid + 1) * np.arange(1, 5, dtype=np.float32)[None, :]
    rows = multihost_utils.host_local_array_to_global_array(row, mesh, P("p"))
    psum = jax.jit(jax.shard_map(lambda x: jax.lax.psum(x, "p"), mesh=mesh,
                                 in_specs=P("p"), out_specs=P()))
    np.asarray(multihost_utils.global_array_to_host_local_array(psum(rows), mesh, P()))
    rng = np.random.default_rng(100 + pid)
    x = rng.normal(size=(256, 4)).astype(np.float32)
    y = x @ TRUE_W + 0.1 * rng.normal(size=256).astype(np.float32)
    xs = multihost_utils.host_local_array_to_global_array(x, mesh, P("p"))
    ys = multihost_utils.host_local_array_to_global_array(y, mesh, P("p"))

    def local_loss(w, x, y):
        return jnp.mean((x @ w - y) ** 2)

    def step(w, x, y):
        loss, grad = jax.value_and_grad(local_loss)(w, x, y)
        return w - 0.1 * jax.lax.pmean(grad, "p"), jax.lax.pmean(loss, "p")

    step = jax.jit(jax.shard_map(step, mesh=mesh, in_specs=(P(), P("p"), P("p")),
                                 out_specs=(P(), P())))
    w, loss = step(jnp.zeros(4, dtype=jnp.float32), xs, ys)
    float(loss)  # wait for the step
    first_step = time.time()
    stamp.write(pid, imported=imported, initialized=initialized, first_step=first_step)
    jax.distributed.shutdown()


if __name__ == "__main__":
    main()
