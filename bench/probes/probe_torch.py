"""First-step probe for examples/pytorch-ddp: the example's process-group setup, data, model and
optimizer, one training step, then a timestamp. Same code under tony and under bare ranks."""
import stamp  # noqa: F401  (first: records the start time)
import math
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset



def spirals(n_per_class, noise, seed):
    g = torch.Generator().manual_seed(seed)
    t = torch.sqrt(torch.rand(n_per_class, generator=g)) * 3 * math.pi
    xs, ys = [], []
    for label, phase in ((0, 0.0), (1, math.pi)):
        x = torch.stack([t * torch.cos(t + phase), t * torch.sin(t + phase)], dim=1) / (3 * math.pi)
        xs.append(x + noise * torch.randn(x.shape, generator=g))
        ys.append(torch.full((n_per_class,), label, dtype=torch.long))
    return torch.cat(xs), torch.cat(ys)


def main():
    imported = time.time()
    rank, world_size = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world_size)
    initialized = time.time()
    torch.manual_seed(1234)
    x_train, y_train = spirals(2000, noise=0.02, seed=1)
    train = TensorDataset(x_train, y_train)
    sampler = DistributedSampler(train, num_replicas=world_size, rank=rank, shuffle=True, seed=7)
    loader = DataLoader(train, batch_size=64, sampler=sampler)
    model = DistributedDataParallel(nn.Sequential(
        nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2)))
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
    loss_fn = nn.CrossEntropyLoss()
    sampler.set_epoch(0)
    xb, yb = next(iter(loader))
    optimizer.zero_grad()
    loss_fn(model(xb), yb).backward()  # DDP all-reduces the gradients here
    optimizer.step()
    first_step = time.time()
    stamp.write(rank, imported=imported, initialized=initialized, first_step=first_step)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
