"""Horovod with PyTorch over gloo: an all-reduce, then data-parallel training.

tony's horovod runtime sets what horovodrun's gloo launcher would: HOROVOD_RANK/SIZE,
HOROVOD_LOCAL_RANK/SIZE, HOROVOD_CROSS_RANK/SIZE, HOROVOD_HOSTNAME, HOROVOD_CONTROLLER=gloo and
the rendezvous address of the `driver` task, which tony adds to every horovod job and which serves
horovod's own rendezvous; tony starts the workers once it listens. hvd.init() reads them all.
1. All-reduce: rank r contributes (r + 1) * [1, 2, 3, 4]; the sum must be 3 * [1, 2, 3, 4].
2. Training: linear regression with hvd.DistributedOptimizer, each rank on its own data; the
   weights start from rank 0's (broadcast) and stay identical on every rank.
"""
import os

import horovod.torch as hvd
import torch

TRUE_W = torch.tensor([[2.0, -3.0, 0.5, 1.0]])


def main():
    hvd.init()
    rank, size = hvd.rank(), hvd.size()
    name = f"rank {rank}/{size}"
    print(f"{name}: local_rank {hvd.local_rank()}/{hvd.local_size()} "
          f"cross_rank {hvd.cross_rank()}/{hvd.cross_size()}", flush=True)

    total = hvd.allreduce(torch.tensor([1.0, 2.0, 3.0, 4.0]) * (rank + 1), op=hvd.Sum,
                          name="check")
    print(f"{name}: allreduce {total.tolist()}", flush=True)

    torch.manual_seed(100 + rank)  # each rank its own data and its own initial weights
    x = torch.randn(512, 4)
    y = x @ TRUE_W.T + 0.1 * torch.randn(512, 1)
    model = torch.nn.Linear(4, 1)
    optimizer = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                         named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    losses = []
    for _ in range(20):
        for i in range(0, len(x), 64):
            optimizer.zero_grad()
            loss = torch.nn.functional.mse_loss(model(x[i:i + 64]), y[i:i + 64])
            loss.backward()
            optimizer.step()
        losses.append(float(torch.nn.functional.mse_loss(model(x), y)))
    w = model.weight.detach()
    every = hvd.allgather(torch.cat([w.flatten(), model.bias.detach()])[None, :], name="w")
    in_sync = bool(torch.allclose(every, every[0:1].expand_as(every)))
    print(f"{name}: loss first {losses[0]:.4f} last {losses[-1]:.4f} "
          f"max_error {float((w - TRUE_W).abs().max()):.4f} in_sync {in_sync}", flush=True)
    hvd.shutdown()


if __name__ == "__main__":
    main()
