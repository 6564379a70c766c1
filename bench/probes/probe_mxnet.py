"""First-step probe for examples/mxnet: ps-lite's dist_sync kvstore from the DMLC_* variables,
the example's all-reduce check, data, Gluon model and Trainer on the kvstore, one training step,
then a timestamp (workers only: on the scheduler and server, `import mxnet` serves until the
workers are done and exits, as in the example). Same code under tony and by hand."""
import stamp  # noqa: F401  (first: records the start time)
import time

import mxnet as mx  # scheduler and server serve here, then exit
import numpy as np
from mxnet import autograd, gluon

TRUE_W = np.array([[2.0, -3.0, 0.5, 1.0]], dtype=np.float32)


def main():
    imported = time.time()
    kv = mx.kv.create("dist_sync")
    rank, workers = kv.rank, kv.num_workers
    kv.init(99, mx.nd.zeros(4))
    kv.push(99, mx.nd.array([1, 2, 3, 4]) * (rank + 1))
    total = mx.nd.zeros(4)
    kv.pull(99, out=total)
    total.wait_to_read()
    initialized = time.time()
    rng = np.random.default_rng(100 + rank)
    x = rng.normal(size=(512, 4)).astype(np.float32)
    y = x @ TRUE_W.T + 0.1 * rng.normal(size=(512, 1)).astype(np.float32)
    data = gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=64, shuffle=True)
    mx.random.seed(1)
    net = gluon.nn.Dense(1, in_units=4)
    net.initialize(mx.init.Zero())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1}, kvstore=kv)
    loss_fn = gluon.loss.L2Loss()
    xb, yb = next(iter(data))
    with autograd.record():
        loss = loss_fn(net(xb), yb)
    loss.backward()
    trainer.step(xb.shape[0] * workers)
    net.weight.data().wait_to_read()  # the pushed gradients came back as updated weights
    first_step = time.time()
    stamp.write(rank, imported=imported, initialized=initialized, first_step=first_step)


if __name__ == "__main__":
    main()
