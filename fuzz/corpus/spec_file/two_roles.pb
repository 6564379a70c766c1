mnistB
tensorflowR.
ps€"python train.py@X è¨àÔRB
worker€ "python train.py*/data::dX€ˆš°àÔ¸`ÿÿÿÿÿÿÿÿÿxè€²
workergps 2kÂA=1àŠ€Â
nvidia-smiÊworkerÀ>