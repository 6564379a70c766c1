"""Sentiment classification of movie reviews with tf.distribute.ParameterServerStrategy.

The coordinator-as-chief pattern: tony runs this script in every task and sets TF_CONFIG. The ps
and worker tasks only start a tf.distribute.Server and serve forever; the chief is the
coordinator: it places the model's variables on the parameter servers, schedules training steps
on the workers (each reads its own shard of the data) and evaluates the model at the end. The job
ends when the chief does: tony stops the servers then.

Data: the .npy files of examples/tensorflow-mwms/src/make_data.py, read from --data-dir.
"""
import argparse
import collections
import json
import os
import time

import numpy as np
import tensorflow as tf

VOCAB_SIZE = 2000


def load(data_dir, split):
    return (np.load(os.path.join(data_dir, f"x_{split}.npy")),
            np.load(os.path.join(data_dir, f"y_{split}.npy")))


def serve(resolver):
    """ps and worker tasks: a TensorFlow server the chief drives, until tony stops the task."""
    task = resolver.task_type, resolver.task_id
    print(f"{task[0]} {task[1]}: serving", flush=True)
    server = tf.distribute.Server(resolver.cluster_spec(), job_name=task[0], task_index=task[1],
                                  protocol=resolver.rpc_layer or "grpc", start=True)
    server.join()


def coordinate(resolver, args):
    strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    x_train, y_train = load(args.data_dir, "train")
    x_test, y_test = load(args.data_dir, "test")
    steps_per_epoch = len(x_train) // args.batch_size

    def dataset_fn(input_context):
        per_worker_batch = input_context.get_per_replica_batch_size(args.batch_size)
        ds = tf.data.Dataset.from_tensor_slices((x_train, y_train))
        ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
        return ds.shuffle(len(x_train)).repeat().batch(per_worker_batch).prefetch(2)

    @tf.function
    def per_worker_dataset_fn():
        return strategy.distribute_datasets_from_function(dataset_fn)

    per_worker_iterator = iter(coordinator.create_per_worker_dataset(per_worker_dataset_fn))

    tf.keras.utils.set_random_seed(1234)
    with strategy.scope():
        model = tf.keras.Sequential([
            tf.keras.layers.Embedding(VOCAB_SIZE, 16),
            tf.keras.layers.GlobalAveragePooling1D(),
            tf.keras.layers.Dense(16, activation="relu"),
            tf.keras.layers.Dense(1, activation="sigmoid"),
        ])
        model.build((None, x_train.shape[1]))
        optimizer = tf.keras.optimizers.legacy.Adam(learning_rate=0.01)
        train_accuracy = tf.keras.metrics.BinaryAccuracy()

    @tf.function
    def train_step(iterator):
        def step(x, y):
            with tf.GradientTape() as tape:
                prediction = model(x, training=True)[:, 0]
                per_example = tf.keras.losses.binary_crossentropy(y[:, None], prediction[:, None])
                loss = tf.nn.compute_average_loss(per_example)
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            train_accuracy.update_state(y, prediction)
            return loss

        x, y = next(iterator)
        # Which worker ran this step, to show that every worker trains.
        worker = tf.distribute.coordinator.experimental_get_current_worker_index()
        return strategy.run(step, args=(x, y)), worker

    start = time.time()
    steps_by_worker = collections.Counter()
    for epoch in range(args.epochs):
        train_accuracy.reset_states()
        steps = [coordinator.schedule(train_step, args=(per_worker_iterator,))
                 for _ in range(steps_per_epoch)]
        coordinator.join()
        results = [s.fetch() for s in steps]
        steps_by_worker.update(int(worker) for _, worker in results)
        mean_loss = float(np.mean([loss for loss, _ in results]))
        print(f"chief: epoch {epoch + 1} loss {mean_loss:.4f} "
              f"accuracy {float(train_accuracy.result()):.4f}", flush=True)

    # Evaluation on the coordinator itself, reading the variables from the parameter servers.
    prediction = model(x_test, training=False).numpy()[:, 0]
    test_loss = float(tf.keras.losses.binary_crossentropy(y_test, prediction))
    test_accuracy = float(np.mean((prediction > 0.5) == (y_test > 0.5)))
    print(f"chief: final test loss {test_loss:.4f} accuracy {test_accuracy:.4f} "
          f"steps_by_worker {dict(sorted(steps_by_worker.items()))} "
          f"variables_on {model.trainable_variables[0].device} "
          f"train_seconds {time.time() - start:.1f}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--data-dir", default="data")
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch-size", type=int, default=64, help="per step, across workers")
    args = parser.parse_args()
    os.environ.setdefault("GRPC_FAIL_FAST", "use_caller")
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    print(f"TF_CONFIG task: {json.loads(os.environ['TF_CONFIG'])['task']}", flush=True)
    if resolver.task_type in ("ps", "worker"):
        serve(resolver)
    else:
        coordinate(resolver, args)


if __name__ == "__main__":
    main()
