"""First-step probe for examples/tensorflow-ps: ParameterServerStrategy in the coordinator-as-chief
pattern, from TF_CONFIG. The ps and worker tasks serve (tf.distribute.Server) until they are
stopped; the chief builds the strategy and its ClusterCoordinator (connects to every server),
the example's per-worker dataset and model, schedules ONE training step on a worker, fetches its
result, and stamps as rank 0. Same code under tony and under hand-started processes."""
import stamp  # noqa: F401  (first: records the start time)
import argparse
import os
import time

import numpy as np
import tensorflow as tf

VOCAB_SIZE = 2000


def main():
    imported = time.time()
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir", default="data")
    p.add_argument("--stamp-dir")
    args = p.parse_args()
    os.environ.setdefault("GRPC_FAIL_FAST", "use_caller")
    resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver()
    if resolver.task_type in ("ps", "worker"):
        tf.distribute.Server(resolver.cluster_spec(), job_name=resolver.task_type,
                             task_index=resolver.task_id, protocol="grpc", start=True).join()
        return
    strategy = tf.distribute.experimental.ParameterServerStrategy(resolver)
    coordinator = tf.distribute.coordinator.ClusterCoordinator(strategy)
    initialized = time.time()
    x_train = np.load(os.path.join(args.data_dir, "x_train.npy"))
    y_train = np.load(os.path.join(args.data_dir, "y_train.npy"))

    def dataset_fn(input_context):
        batch = input_context.get_per_replica_batch_size(64)
        ds = tf.data.Dataset.from_tensor_slices((x_train, y_train))
        ds = ds.shard(input_context.num_input_pipelines, input_context.input_pipeline_id)
        return ds.shuffle(len(x_train)).repeat().batch(batch).prefetch(2)

    @tf.function
    def per_worker_dataset_fn():
        return strategy.distribute_datasets_from_function(dataset_fn)

    iterator = iter(coordinator.create_per_worker_dataset(per_worker_dataset_fn))
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

    @tf.function
    def train_step(iterator):
        def step(x, y):
            with tf.GradientTape() as tape:
                prediction = model(x, training=True)[:, 0]
                per_example = tf.keras.losses.binary_crossentropy(y[:, None], prediction[:, None])
                loss = tf.nn.compute_average_loss(per_example)
            gradients = tape.gradient(loss, model.trainable_variables)
            optimizer.apply_gradients(zip(gradients, model.trainable_variables))
            return loss
        x, y = next(iterator)
        return strategy.run(step, args=(x, y))

    coordinator.schedule(train_step, args=(iterator,)).fetch()
    first_step = time.time()
    stamp.write(0, imported=imported, initialized=initialized, first_step=first_step)


if __name__ == "__main__":
    main()
