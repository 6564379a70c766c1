"""First-step probe for examples/horovod: hvd.init() (gloo, from the launcher's variables), the
example's model, DistributedOptimizer and parameter broadcast, one training step, then a
timestamp. Same code under tony and under horovodrun."""
import stamp  # noqa: F401  (first: records the start time)
import time

import horovod.torch as hvd
import torch

TRUE_W = torch.tensor([[2.0, -3.0, 0.5, 1.0]])


def main():
    imported = time.time()
    hvd.init()
    rank = hvd.rank()
    initialized = time.time()
    torch.manual_seed(100 + rank)
    x = torch.randn(512, 4)
    y = x @ TRUE_W.T + 0.1 * torch.randn(512, 1)
    model = torch.nn.Linear(4, 1)
    optimizer = hvd.DistributedOptimizer(torch.optim.SGD(model.parameters(), lr=0.1),
                                         named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(model(x[:64]), y[:64]).backward()
    optimizer.step()  # waits for the gradient all-reduce
    first_step = time.time()
    stamp.write(rank, imported=imported, initialized=initialized, first_step=first_step)
    hvd.shutdown()


if __name__ == "__main__":
    main()
