"""MXNet's parameter server (ps-lite, kvstore dist_sync): a scheduler, a server and 2 workers.

tony's mxnet runtime sets DMLC_ROLE (the task's role), DMLC_PS_ROOT_URI/PORT (the scheduler's IP
address and reserved port) and DMLC_NUM_SERVER/WORKER. Every task runs this script. On the
scheduler and server tasks `import mxnet` itself runs ps-lite's loop and exits once the workers
are done; the workers:
1. all-reduce through the server: worker r pushes (r + 1) * [1, 2, 3, 4]; dist_sync sums the
   pushes, so every worker pulls sum(r + 1) * [1, 2, 3, 4];
2. train a linear regression with a Gluon Trainer on the dist_sync kvstore (the optimizer runs on
   the server), each worker on its own data; both end with the same weights, near the true ones.
"""
import argparse
import os
import time

import mxnet as mx  # scheduler and server tasks serve here until the job is done, then exit
import numpy as np
from mxnet import autograd, gluon

TRUE_W = np.array([[2.0, -3.0, 0.5, 1.0]], dtype=np.float32)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--lr", type=float, default=0.1)
    args = parser.parse_args()

    kv = mx.kv.create("dist_sync")
    rank, workers = kv.rank, kv.num_workers
    name = f"worker {rank}/{workers}"
    print(f"{name}: DMLC_ROLE {os.environ['DMLC_ROLE']} scheduler "
          f"{os.environ['DMLC_PS_ROOT_URI']}:{os.environ['DMLC_PS_ROOT_PORT']}", flush=True)

    CHECK_KEY = 99  # an int key: the Trainer uses int keys, and a kvstore takes one kind
    kv.init(CHECK_KEY, mx.nd.zeros(4))
    kv.push(CHECK_KEY, mx.nd.array([1, 2, 3, 4]) * (rank + 1))
    total = mx.nd.zeros(4)
    kv.pull(CHECK_KEY, out=total)
    print(f"{name}: allreduce {total.asnumpy().tolist()}", flush=True)

    rng = np.random.default_rng(100 + rank)  # each worker its own data
    x = rng.normal(size=(512, 4)).astype(np.float32)
    y = x @ TRUE_W.T + 0.1 * rng.normal(size=(512, 1)).astype(np.float32)
    data = gluon.data.DataLoader(gluon.data.ArrayDataset(x, y), batch_size=64, shuffle=True)
    mx.random.seed(1)
    net = gluon.nn.Dense(1, in_units=4)
    net.initialize(mx.init.Zero())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": args.lr}, kvstore=kv)
    loss_fn = gluon.loss.L2Loss()
    start = time.time()
    for epoch in range(args.epochs):
        total_loss = 0.0
        for xb, yb in data:
            with autograd.record():
                loss = loss_fn(net(xb), yb)
            loss.backward()
            trainer.step(xb.shape[0] * workers)  # the server sums every worker's gradient
            total_loss += float(loss.sum().asscalar())
        if epoch == 0 or epoch == args.epochs - 1:
            print(f"{name}: epoch {epoch + 1} loss {total_loss / len(x):.4f}", flush=True)
    w = net.weight.data().asnumpy()
    print(f"{name}: w {np.round(w, 3).tolist()} max_error {float(np.abs(w - TRUE_W).max()):.4f} "
          f"checksum {float(w.sum() + net.bias.data().asnumpy().sum()):.6f} "
          f"train_seconds {time.time() - start:.1f}", flush=True)


if __name__ == "__main__":
    main()
