"""Distributed data-parallel training of a small classifier with PyTorch's gloo backend.

tony starts one copy per worker and sets the torchrun variables (MASTER_ADDR, MASTER_PORT, RANK,
WORLD_SIZE, LOCAL_RANK); the script needs nothing tony-specific. The data set is generated here:
points on two interleaved spirals, a problem a linear model cannot solve (about 50%) and a small
MLP learns to well above 95%. Every rank makes the same data from the same seed and trains on its
own shard (DistributedSampler); gradients are averaged by DistributedDataParallel.
"""
import argparse
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
        x = x + noise * torch.randn(x.shape, generator=g)
        xs.append(x)
        ys.append(torch.full((n_per_class,), label, dtype=torch.long))
    return torch.cat(xs), torch.cat(ys)


def evaluate(model, x, y, loss_fn):
    model.eval()
    with torch.no_grad():
        logits = model(x)
        loss = loss_fn(logits, y).item()
        accuracy = (logits.argmax(dim=1) == y).float().mean().item()
    model.train()
    return loss, accuracy


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--samples", type=int, default=2000, help="points per class")
    args = parser.parse_args()

    rank = int(os.environ["RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world_size)
    torch.manual_seed(1234)  # the same initial weights on every rank

    x_train, y_train = spirals(args.samples, noise=0.02, seed=1)
    x_test, y_test = spirals(500, noise=0.02, seed=2)
    train = TensorDataset(x_train, y_train)
    sampler = DistributedSampler(train, num_replicas=world_size, rank=rank, shuffle=True, seed=7)
    loader = DataLoader(train, batch_size=args.batch_size, sampler=sampler)

    model = DistributedDataParallel(nn.Sequential(
        nn.Linear(2, 64), nn.Tanh(), nn.Linear(64, 64), nn.Tanh(), nn.Linear(64, 2)))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    loss_fn = nn.CrossEntropyLoss()

    start = time.time()
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for xb, yb in loader:
            optimizer.zero_grad()
            loss_fn(model(xb), yb).backward()
            optimizer.step()
        if rank == 0 and (epoch % 5 == 4 or epoch == args.epochs - 1):
            loss, acc = evaluate(model, x_test, y_test, loss_fn)
            print(f"epoch {epoch + 1}/{args.epochs} test loss {loss:.4f} accuracy {acc:.4f}",
                  flush=True)

    loss, acc = evaluate(model, x_test, y_test, loss_fn)
    # Every rank must hold the same model: check it with an all-reduce of a weight checksum.
    checksum = torch.tensor([sum(p.sum().item() for p in model.parameters())])
    gathered = [torch.zeros(1) for _ in range(world_size)]
    dist.all_gather(gathered, checksum)
    in_sync = all(abs(g.item() - checksum.item()) < 1e-4 for g in gathered)
    print(f"rank {rank}/{world_size}: final test loss {loss:.4f} accuracy {acc:.4f} "
          f"replicas_in_sync {in_sync} train_seconds {time.time() - start:.1f}", flush=True)
    dist.destroy_process_group()
    if not in_sync:
        raise SystemExit("model replicas diverged")


if __name__ == "__main__":
    main()
